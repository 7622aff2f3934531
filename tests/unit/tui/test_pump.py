"""The pump without a terminal: one throttle for numbers, run states, the first error once."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

from specview.backends.factory import make_backend
from specview.backends.replay import ReplayOptions
from specview.kernel.events import TokenEvent
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.texts.catalog import fill, text
from specview.tui.pump import NUMBERS_HZ, REASON_CHARS, Pump, Pumps, RunState, Throttle
from tests.support.recordings import record_sim


class Tokens:
    """A stream view that keeps what it is given (the pump's only view contract)."""

    def __init__(self) -> None:
        self.tokens: list[TokenEvent] = []
        self.clears = 0

    def clear(self) -> None:
        self.tokens.clear()
        self.clears += 1

    def append(self, tokens: list[TokenEvent]) -> None:
        self.tokens.extend(tokens)

    def drop_tail(self, count: int) -> None:
        del self.tokens[len(self.tokens) - count:]


def sim_session(rounds: int | None, speed: float = 0.0) -> Session:
    return Session(make_backend(RunSpec(preset="qwen3.6-mtp", seed=3, speed=speed, max_rounds=rounds)))


def test_numbers_are_redrawn_at_most_numbers_hz_and_at_once_when_the_run_ends() -> None:
    view, errors, draws = Tokens(), [], []
    pump = Pump(sim_session(None, speed=40.0), view, on_error=lambda m, t: errors.append(m), title="run")
    pumps = Pumps([pump], Throttle(pump_hz=30.0, numbers_hz=NUMBERS_HZ),
                  lambda stale: draws.append((time.monotonic(), pump.drawn_rounds)))
    pump.start()
    try:
        deadline = time.monotonic() + 30
        while pump.drawn_rounds == 0 and time.monotonic() < deadline:  # the simulator imports numpy first
            pump.drain()
            time.sleep(0.01)
        draws.clear()
        start = time.monotonic()
        while time.monotonic() - start < 1.0:  # ten times the pump rate: the numbers must not follow
            pump.drain()
            pumps.flush_numbers()
            time.sleep(1 / 300)
    finally:
        pump.stop()
    assert pump.drawn_rounds > 10 and errors == []
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(draws)]
    assert 3 <= len(draws) <= 1.0 * NUMBERS_HZ + 1
    assert min(gaps) >= 1 / NUMBERS_HZ - 0.005

    view, draws = Tokens(), []
    pump = Pump(sim_session(40), view, on_error=lambda m, t: errors.append(m), title="run")
    pumps = Pumps([pump], Throttle(pump_hz=30.0, numbers_hz=0.001), lambda stale: draws.append(pump.state))
    pump.start()
    pumps.flush_numbers()  # the first numbers (all dashes) are due at once
    deadline = time.monotonic() + 20
    while not pump.state.ended and time.monotonic() < deadline:
        pump.drain()
        pumps.flush_numbers()
    # nothing is due by the clock: only the first numbers, the first rounds' and the end are drawn
    assert draws[0] == RunState("running") and draws[-1] == RunState("finished")
    assert len(draws) <= 3 and set(draws[1:-1]) <= {RunState("running")}
    assert len([t for t in view.tokens if t.emitted]) == pump.session.metrics.tokens


def test_a_failing_run_stops_with_its_reason_and_reports_once(tmp_path: Path) -> None:
    file = tmp_path / "damaged.jsonl"
    record_sim(file, 40)
    lines = file.read_text(encoding="utf-8").splitlines(keepends=True)
    file.write_text("".join(lines[:22]) + "{oops\n" + "".join(lines[23:]), encoding="utf-8")
    errors: list[tuple[str, str]] = []
    session = Session(make_backend(RunSpec(speed=0.0, options=ReplayOptions(recording=str(file)))))
    pump = Pump(session, Tokens(), on_error=lambda m, t: errors.append((str(m), t)), title="replay run")
    pump.start()
    deadline = time.monotonic() + 20
    while not pump.state.ended and time.monotonic() < deadline:
        pump.drain()
    for _ in range(3):
        pump.drain()  # later ticks see the same error: it is not reported again
    assert pump.state.kind == "stopped" and pump.drawn_rounds == 20
    assert len(errors) == 1 and errors[0][1] == "replay run" and "line 23" in errors[0][0]
    shown = pump.state.text("en")
    prefix = fill("state.stopped", "en", reason="")
    reason = shown.removeprefix(prefix)
    assert shown.startswith(prefix) and errors[0][0].startswith(reason.split("…[+")[0])
    assert len(reason) <= REASON_CHARS + len("…[+9999]"), "the reason is cut short (the notification has it whole)"
    assert "\n" not in shown


def test_pause_step_and_restart_track_the_state() -> None:
    view = Tokens()
    pump = Pump(sim_session(None, speed=20.0), view, on_error=lambda m, t: None, title="run")
    pump.start()
    try:
        pump.step()  # pauses first, then lets one round through
        assert pump.paused and pump.state == RunState("paused")
        pump.resume()
        assert pump.state == RunState("running")
        pump.pause()
        pump.restart(lambda: sim_session(None, speed=20.0))
        assert pump.paused and pump.state == RunState("paused") and view.clears == 1 and pump.drawn_rounds == 0
    finally:
        pump.stop()


def test_one_state_for_several_runs() -> None:
    pumps = [Pump(sim_session(5), Tokens(), on_error=lambda m, t: None, title=str(i)) for i in range(2)]
    group = Pumps(pumps, Throttle.default({}), lambda stale: None)
    assert group.throttle == Throttle(30.0, NUMBERS_HZ) and Throttle.default({"SSH_CONNECTION": "x"}).pump_hz == 20
    assert Throttle.at(4) == Throttle(4, 2) and Throttle.at(60) == Throttle(60, NUMBERS_HZ)
    assert group.state_text("en") == text("state.running", "en")
    pumps[0].state = RunState("finished")
    assert group.state_text("en") == text("state.running", "en")
    pumps[1].state = RunState("stopped", "gone")
    assert group.state_text("en") == text("state.finished", "en")
