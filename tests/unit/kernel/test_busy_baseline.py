"""A run whose baseline was measured while the machine was busy: the speedup is "—" with the reason
(side panel, `bench --table`, `bench --json`, `sweep gamma`), never a number above τ; a calibration
whose own repeats say so is set aside; a busy but steady machine still gets its number."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

from rich.cells import cell_len

from specview.features.live.bench_command import missing_lines
from specview.features.sweep.model import GammaPoint, analyse_gamma
from specview.features.sweep.render import gamma_text
from specview.kernel.backend import BackendInfo
from specview.kernel.events import Calibration, Round, TokenEvent, TokenStatus
from specview.kernel.gauges import GAUGES, Reading
from specview.kernel.machine_load import Load
from specview.kernel.metrics import Metrics
from specview.kernel.session import Session
from specview.report.run_json import stats_dict
from specview.tui.gauges import note_text
from specview.widgets.stat_gauge import NOTE_JOIN

PANEL_NOTE_CELLS = 34  # a note line in the live view's side panel (40 columns, less border, padding, indent)

SPEEDUP = next(spec for spec in GAUGES if spec.key == "speedup")
A, R, C = TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED
# n-gram on a repetitive prompt, γ 4: three drafts accepted and a corrected token, τ 4, on a 2-core CPU
# whose k-token forwards cost about k 1-token ones
COSTS = tuple((0.028 * k, 0.029 * k, 0.030 * k) for k in range(1, 6))
ROUND_S = (0.140, 0.150)  # a round: 3 draft steps and a 5-token verify, alternating a little
FREE_PLAIN = (0.030, 0.031, 0.032)  # the plain step on a free machine
TAKEN_PLAIN = (0.700, 0.720, 0.740)  # the same step timed while two other processes held both cores
TWO_ON_TWO = Load(2, 2)


def _round(index: int, t_wall: float) -> Round:
    tokens = tuple(TokenEvent(i, "x", s, i) for i, s in enumerate([A, A, A, R, C]))
    return Round(index, 4, tokens, 0.003, 0.12, t_wall)


def _items(*calibrations: Calibration, rounds: int = 48) -> list[Calibration | Round]:
    """The calibrations spread over a run of `rounds` rounds (the first before any round)."""
    items: list[Calibration | Round] = []
    every = rounds // len(calibrations)
    t = 1.0
    for i in range(rounds):
        if i % every == 0 and i // every < len(calibrations):
            items.append(calibrations[i // every])
        t += ROUND_S[i % 2]
        items.append(_round(i, t))
    return items


class _Script:
    """A local run's stream, scripted: the calibrations among its rounds."""

    def __init__(self, items: list[Calibration | Round]) -> None:
        self.items = items
        self.info = _info()

    def rounds(self, stop: threading.Event) -> Iterator[Calibration | Round]:
        yield from self.items

    def close(self) -> None:
        pass


def _session(*calibrations: Calibration) -> Session:
    """The events folded through the Session, as the backend's stream would be."""
    session = Session(_Script(_items(*calibrations)))  # type: ignore[arg-type]
    list(session.run_headless())
    return session


def _info() -> BackendInfo:
    return BackendInfo("llama", "gemma", 4, 0.0, model="gemma.gguf", draft="ngram")


def _metrics(*calibrations: Calibration) -> Metrics:
    m = Metrics()
    for item in _items(*calibrations):
        m.add(item)
    return m


def test_a_baseline_measured_while_the_machine_was_taken_gives_no_speedup_but_its_reason() -> None:
    snap = _metrics(Calibration.timed(TAKEN_PLAIN, COSTS, context=40, load=TWO_ON_TWO)).snapshot()
    assert snap.tau == 4.0
    reading = Reading.of(snap, _info())
    over = reading.over
    # tok/s × the taken plain step would read ≈ 19×, above τ 4, which no speculation can reach
    assert snap.tokens_per_second is not None and snap.tokens_per_second * 0.72 > 4 * snap.tau
    assert over.speedup_measured is None and over.speedup_spread is None and over.speedup_verdict is None
    assert over.speedup_withheld is not None
    assert SPEEDUP.formatted(reading, windowed=False) == "—" and SPEEDUP.formatted(reading, windowed=True) == "—"
    # the side panel's note, in parts that each fit its columns
    for lang, words in (("en", ["baseline timed on a busy machine", "2 others runnable, 2 cores",
                                "speedup above τ 4.00 beyond noise"]),
                        ("zh", ["基线是在机器繁忙时测的", "2 核上另有 2 个可运行进程",
                                "加速比高于每轮 τ 4.00，超出噪声"])):
        parts = note_text(SPEEDUP, reading, lang).split(NOTE_JOIN)
        assert set(words) <= set(parts) and all(cell_len(part) <= PANEL_NOTE_CELLS for part in words), parts
    busy = "the machine was busy while the baseline was measured (2 other runnable processes on 2 cores)"
    assert any(busy in line for line in missing_lines([reading], "en"))  # bench --table's line under the table
    assert "测量基线时机器正忙（2 个核心上另有 2 个可运行的进程）" in missing_lines([reading], "zh")[0]

    stats = json.loads(json.dumps(stats_dict(_info(), snap, "")))
    assert stats["speedup"] is None and stats["speedup_verdict"] is None and stats["spread"]["speedup"] is None
    withheld = stats["speedup_withheld"]
    assert withheld["signal"] == "above_tau" and withheld["id"] == "busy.above_tau"
    assert withheld["text"].startswith(busy) and withheld["load"] == {"others": 2, "cores": 2, "kind": "runnable"}
    assert stats["provenance"]["speedup_basis"] == "measured"


def test_a_busy_but_steady_machine_keeps_its_measured_speedup() -> None:
    # other work on both cores the whole time slows the run and its plain step alike: no signal
    snap = _metrics(Calibration.timed(FREE_PLAIN, COSTS, context=40, load=Load(6, 2))).snapshot()
    over = Reading.of(snap, _info()).over
    assert over.speedup_withheld is None and over.speedup_measured is not None and over.speedup_measured < snap.tau
    stats = stats_dict(_info(), snap, "")
    assert stats["speedup"] is not None and stats["speedup_withheld"] is None
    assert stats["spread"]["calibrations_set_aside"] == 0


def test_a_calibration_its_own_repeats_call_disturbed_is_set_aside_from_the_baseline() -> None:
    slowed = (0.031, 0.400, 0.420)  # two of three plain steps taken by other work
    session = _session(Calibration.timed(FREE_PLAIN, COSTS, context=40),
                       Calibration.timed(slowed, COSTS, context=80, load=TWO_ON_TWO))
    snap = session.metrics.snapshot()
    cal = snap.calibration
    assert cal is not None and cal.plain_s == 0.031 and cal.load == TWO_ON_TWO  # the clean one's step
    assert snap.calibrations == 2 and snap.calibrations_set_aside == 1
    assert snap.calibration_spread is not None and snap.calibration_spread.calibrations == 1
    over = Reading.of(snap, _info()).over
    assert over.speedup_withheld is None and over.speedup_measured is not None
    assert stats_dict(_info(), snap, "")["spread"]["calibrations_set_aside"] == 1


def test_with_every_calibration_set_aside_there_is_no_baseline_and_the_reason_says_why() -> None:
    snap = _metrics(Calibration.timed((0.031, 0.400, 0.420), COSTS, context=40, load=TWO_ON_TWO)).snapshot()
    reading = Reading.of(snap, _info())
    over = reading.over
    assert over.speedup_measured is None and over.speedup_basis == "measured" and over.plain_tokens_per_second is None
    assert over.speedup_withheld is not None and over.speedup_withheld.key == "busy.plain_disagrees"
    assert "plain step 400.0 vs 31.0 ms" in note_text(SPEEDUP, reading, "en")
    assert "400.0 ms in one timing and 31.0 ms in another" in missing_lines([reading], "en")[0]
    stats = stats_dict(_info(), snap, "")
    assert stats["speedup"] is None and stats["speedup_withheld"]["signal"] == "plain_disagrees"


def _point(gamma: int, tps: float, tau: float, load: Load | None = None) -> GammaPoint:
    return GammaPoint(gamma, 120, round(120 / tau), tps, tau, 0.9 if gamma else None, (0.9,) * gamma,
                      0.02 if gamma else None, 0.05, float(gamma), 100 if gamma else 0, 110 if gamma else 0, gamma,
                      tokens_per_second_spread=tps / 50, load=load)


def test_sweep_gamma_gives_no_speedup_when_the_plain_run_was_taken() -> None:
    taken = analyse_gamma([_point(0, 0.92, 1.0, TWO_ON_TWO), _point(2, 9.4, 2.9), _point(4, 17.8, 4.0)])
    assert all(r.speedup is None for r in taken.rows if r.point.gamma > 0)
    assert taken.speedup_withheld is not None
    data = json.loads(json.dumps(taken.to_dict()))
    assert data["speedup_withheld"]["signal"] == "above_tau" and all(r["speedup"] is None for r in data["rows"][1:])
    assert "2 other runnable processes on 2 cores" in data["speedup_withheld"]["text"]
    assert "the machine was busy while the baseline was measured" in gamma_text(taken, "en")
    assert "测量基线时机器正忙" in gamma_text(taken, "zh")
    # the same sweep measured back to back on a free machine: the speedups stand
    free = analyse_gamma([_point(0, 15.0, 1.0, TWO_ON_TWO), _point(2, 22.0, 2.9), _point(4, 26.5, 4.0)])
    assert free.speedup_withheld is None and [r.speedup for r in free.rows][1:] == [22.0 / 15.0, 26.5 / 15.0]
