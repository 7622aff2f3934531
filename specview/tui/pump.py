"""The pump: the one way a Session reaches the screen.

A `Pump` drains one Session into one stream view (appending, or redrawing everything after a
reconcile), tracks the run's state (running, paused, finished, stopped: reason) and surfaces
the run's first error once. A screen owns one `Pumps` — the live view with one pump, compare
with one per run — whose single timer ticks every pump inside one batch_update().

Redraw policy (`Throttle`, one knob for every screen): streams are appended on every tick
(`pump_hz`); numbers and charts are redrawn at most `numbers_hz`, only for runs that changed
since, and at once for a run's first rounds, when it ends or when a user action changes it.
Widgets then redraw only when the text they are given differs from what they show.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Protocol

from specview.boundary.text import sanitize
from specview.kernel.errors import SpecviewError
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.gauges import Reading
from specview.kernel.session import Session
from specview.report.display_order import drawable
from specview.texts.catalog import Phrase, fill, text

if TYPE_CHECKING:
    from textual.message_pump import MessagePump
    from textual.timer import Timer
    from textual.widget import Widget

NUMBERS_HZ = 5.0  # digits that change 30 times a second cannot be read, and redrawing them costs frames
PUMP_HZ = 30.0
PUMP_HZ_SSH = 20.0  # every frame crosses the network
TIMER_MIN = 1e-4  # seconds: Textual's timer divides by its interval, and 0 lets input in all the same
REASON_CHARS = 120  # of a stop's reason in the status line (the notification has it whole)


@dataclass(frozen=True, slots=True)
class Throttle:
    """How often a screen redraws: its streams `pump_hz` times a second (each tick drains every
    session), its numbers and charts at most `numbers_hz` times a second."""

    pump_hz: float
    numbers_hz: float

    @classmethod
    def default(cls, env: Mapping[str, str] = os.environ) -> Throttle:
        """30 Hz locally, 20 Hz over SSH; numbers at 5 Hz."""
        return cls(PUMP_HZ_SSH if env.get("SSH_CONNECTION") else PUMP_HZ, NUMBERS_HZ)

    @classmethod
    def at(cls, fps: float) -> Throttle:
        """A frame rate asked for (`--fps`, the config's fps): numbers at most every other frame,
        so a slow link's frames carry the stream first."""
        return cls(fps, min(NUMBERS_HZ, fps / 2))


@dataclass(frozen=True, slots=True)
class RunState:
    """Where a run is: running, paused, finished, or stopped with the reason (its first error)."""

    kind: str = "running"
    reason: Phrase | str = ""  # a Phrase is put into words in the language of the screen that shows it

    @property
    def ended(self) -> bool:
        return self.kind in ("finished", "stopped")

    def text(self, lang: str) -> str:
        """The state as the status line writes it ("✗ stopped: server went away"): the reason's
        first line, made safe and cut short (it comes from a server or a file)."""
        said = self.reason.render(lang) if isinstance(self.reason, Phrase) else self.reason
        first = said.strip().splitlines()[0] if said.strip() else ""
        reason = sanitize(first, REASON_CHARS, one_line=True)
        return fill(f"state.{self.kind}", lang, reason=reason)


class StreamView(Protocol):
    """Where a pump puts tokens (a TokenView, a compare pane)."""

    def clear(self) -> None: ...

    def append(self, tokens: list[TokenEvent]) -> None: ...

    def drop_tail(self, count: int) -> None: ...


def undecided(rnd: Round) -> list[TokenEvent]:
    """A round's drafts before their verdicts: every draft the stream knows, in draft order,
    marked undecided (q shown, p not yet: the target has not judged them)."""
    drafts = [t for t in rnd.tokens if t.status in (TokenStatus.ACCEPTED, TokenStatus.REJECTED)]
    drafts += rnd.discarded
    return [TokenEvent(t.token_id, t.text, TokenStatus.UNDECIDED, t.position, None, t.q, t.inferred) for t in drafts]


ErrorSink = Callable[[Phrase | str, str], None]  # (message, title)


class Pump:
    """Drains one Session into one stream view; the screen draws its numbers when asked."""

    def __init__(self, session: Session, view: StreamView, *, on_error: ErrorSink, title: str) -> None:
        self.view = view
        self.on_error = on_error
        self.title = title
        self.session = session
        self.drawn_rounds = 0
        self.state = RunState()
        self.gamma_now: int | None = None  # γ of the latest round (adaptive drafting changes it)
        self.stale = True  # the numbers on screen lag behind the stream
        self.urgent = False  # redraw the numbers at the next tick, whatever the throttle says
        # Step mode in two phases: a stepped round first shows its drafts undecided; the next step
        # shows the verdicts instead (held here), without asking the backend for another round.
        self.two_phase = False
        self._held: list[TokenEvent] | None = None
        self._provisional = 0

    @property
    def verdict_pending(self) -> bool:
        """A round's drafts are on screen, undecided; the next step shows their verdicts."""
        return self._held is not None

    def _release(self) -> None:
        """Replace the undecided drafts by the round's verdicts."""
        if self._held is None:
            return
        self.view.drop_tail(self._provisional)
        self.view.append(self._held)
        self._held, self._provisional = None, 0

    # the run -----------------------------------------------------------------
    def start(self) -> None:
        self.session.start()

    def stop(self) -> None:
        self.session.stop()

    def restart(self, make_session: Callable[[], Session], *, close: bool = True) -> None:
        """Stop the current session (releasing its backend unless `close` is False: a restart
        reuses it), then show a new one from the beginning, paused if the old one was.
        If the new session cannot be made, the error propagates and the run shows as stopped."""
        paused = self.session.paused
        self.session.stop(close=close)
        self.drawn_rounds = 0
        self.gamma_now = None
        self._held, self._provisional = None, 0
        self.view.clear()
        self._mark(urgent=True)
        try:
            session = make_session()
        except Exception as exc:
            self.state = RunState("stopped", exc.phrase if isinstance(exc, SpecviewError) else str(exc))
            raise
        self.session = session
        if paused:
            session.pause()
        self.state = RunState("paused" if paused else "running")
        session.start()

    @property
    def paused(self) -> bool:
        return self.session.paused

    def pause(self) -> None:
        self.session.pause()
        self._set_state("paused")

    def resume(self) -> None:
        self._release()
        self.session.resume()
        self._set_state("running")

    def step(self) -> None:
        """One more round, pausing first if running (in two phases: its verdicts, if its drafts
        are showing)."""
        if self._held is not None:
            self._release()
            self._mark(urgent=True)
            return
        if not self.session.paused:
            self.pause()
        self.session.step()

    def reading(self) -> Reading:
        """The run's numbers now (one snapshot)."""
        return Reading.of(self.session.metrics.snapshot(), self.session.backend.info)

    # the tick ----------------------------------------------------------------
    def drain(self, *, wake: bool = True) -> bool:
        """Take what the session produced: append it (or redraw after a reconcile), and note
        whether the run finished or stopped; True if the view or the state changed. With `wake`
        False, a producer waiting for room is not told of it here (`Pumps.drawn` tells it)."""
        got = self.session.drain(wake=wake)
        state, changed = self.state, bool(got.rounds or got.reconciled)
        if changed:
            replace, tokens = drawable(self.session.history, got)
            if replace:  # exact rounds replaced the inferred ones
                self._held, self._provisional = None, 0
                self.view.clear()
            else:
                self._release()  # a round came while verdicts were held: show them first
            drafts = undecided(got.rounds[0]) if self._two_phase_now(got.rounds, replace) else []
            if drafts:
                self.view.append(drafts)
                self._held, self._provisional = tokens, len(drafts)
            else:
                self.view.append(tokens)
            first = self.drawn_rounds == 0
            self.drawn_rounds += len(got.rounds)
            if got.rounds:
                self.gamma_now = got.rounds[-1].drafted
            self._mark(urgent=first)  # the run's first numbers replace the dashes at once
        if self.state.ended:
            return changed
        if got.error:
            self.state = RunState("stopped", got.error)
            self._mark(urgent=True)
            self.on_error(got.error, self.title)
        elif got.finished:
            self.state = RunState("finished")
            self._mark(urgent=True)
        return changed or self.state is not state

    def _two_phase_now(self, rounds: list[Round], replace: bool) -> bool:
        """Whether this drain is one stepped round whose drafts should first show undecided."""
        return (self.two_phase and not replace and self.session.paused and len(rounds) == 1
                and rounds[0].drafted > 0)

    def _set_state(self, kind: str) -> None:
        if not self.state.ended:
            self.state = RunState(kind)
            self._mark(urgent=True)

    def _mark(self, *, urgent: bool) -> None:
        self.stale = True
        self.urgent = self.urgent or urgent


NumbersSink = Callable[[Sequence[Pump]], None]


def next_due(due: float, now: float, interval: float) -> float:
    """When the frame after one that was due at `due` should begin: one interval later, or at once
    when that has passed (a frame ran over), but never more than one interval behind now: one
    missed frame is made up, a long stall is not replayed as a burst."""
    return max(due + interval, now - interval)


def one_shot(host: MessagePump, delay: float, callback: Callable[[], None]) -> Timer:
    """`host.set_timer(delay, callback)` that always fires. Textual's one-shot timer skips a tick it
    finds already due, and for a one-shot that means never: it reads the clock twice at its start,
    and a stall between the two reads longer than `delay` (the decode threads hold the GIL for up to
    5 ms; a frame that ran over asks for 0.1 ms) left the pump with no next frame, the streams frozen.
    (specview/compat/textual_compat.py; tests/app/test_pump_frames.py)"""
    from specview.compat.textual_compat import one_shot_timer

    return one_shot_timer(host, delay, callback, name="pump")


class Pumps:
    """A screen's one timer: each tick drains every pump and, by the throttle, has the screen
    redraw the numbers of the pumps whose numbers are stale."""

    def __init__(self, pumps: Sequence[Pump], throttle: Throttle, draw_numbers: NumbersSink) -> None:
        self.pumps = list(pumps)
        self.throttle = throttle
        self.draw_numbers = draw_numbers
        self._numbers_at = float("-inf")
        self._host: Widget | None = None
        self._timer: Timer | None = None
        self._stopped = False
        self._due = 0.0  # when the next frame should begin (a fixed grid of 1 / pump_hz)
        self._drawing = False  # the last frame changed the screen, and the screen has not drawn it yet
        self._waiting = False  # a frame waits for that draw (`drawn` starts it)
        self._owed = False  # producers not yet told of the room the last frame's drains made

    def start(self, host: Widget) -> None:
        """Start every run and the frames (timers on `host`, so they stop with the screen)."""
        self._host = host
        for pump in self.pumps:
            pump.start()
        self._due = time.monotonic() + 1 / self.throttle.pump_hz
        self._timer = one_shot(host, 1 / self.throttle.pump_hz, self._frame)

    def stop(self) -> None:
        self._stopped = True
        if self._timer is not None:
            self._timer.stop()
        for pump in self.pumps:
            pump.stop()

    def _frame(self, *, late: bool = False) -> None:
        """One frame: drain every pump, and ask for the next frame on the grid.

        The next frame is due one interval after this one was due, not after it began, so lateness
        (a timer starts counting when its task first runs) does not add up into missed frames, and
        one missed frame is made up (`next_due`). A frame does not begin before the screen has drawn
        the last one (`drawn`; at most an interval late): Textual draws at its own 60 Hz update
        ticks, once the widgets' queues go idle, and a frame that began first would fold two frames
        into one draw. The drains leave the producers waiting until that draw: woken at once, four
        producers would hold the GIL while the screen draws."""
        host = self._host
        if host is None or not host.is_attached or not host.app.is_running:  # exiting, or shutting down
            return  # Textual removes a quitting screen's widgets before it stops the screen's timers
        self._waiting = False
        now = time.monotonic()
        interval = 1 / self.throttle.pump_hz
        if self._drawing and not late and host.screen.is_current:  # the last frame is not on the screen yet
            self._waiting = True
            self._timer = one_shot(host, max(self._due + interval - now, TIMER_MIN), partial(self._frame, late=True))
            return
        self._wake()  # no draw told them (nothing changed, or another screen is on top)
        self._drawing = self.tick(wake=False)
        self._owed = self._owed or self._drawing  # (a frame that took nothing made no room)
        if self._stopped:
            return
        now = time.monotonic()
        self._due = next_due(self._due, now, interval)
        self._timer = one_shot(host, max(self._due - now, TIMER_MIN), self._frame)

    def drawn(self) -> None:
        """The screen drew (its screen calls this, `PumpedScreen`): the producers refill now, and a
        frame that waited for the draw begins."""
        self._drawing = False
        self._wake()
        if self._waiting and self._host is not None and not self._stopped:
            self._waiting = False
            if self._timer is not None:
                self._timer.stop()
            self._timer = one_shot(self._host, TIMER_MIN, self._frame)

    def _wake(self) -> None:
        if self._owed:
            self._owed = False
            for pump in self.pumps:
                pump.session.wake()

    def tick(self, *, wake: bool = True) -> bool:
        """Drain every pump; redraw the stale numbers when due. True if anything changed."""
        assert self._host is not None, "start() first"
        with self._host.app.batch_update():
            changed = [pump.drain(wake=wake) for pump in self.pumps]
            return self.flush_numbers() or any(changed)

    def flush_numbers(self, *, force: bool = False) -> bool:
        """Redraw stale numbers if the throttle allows (or a pump asks for it now); True if it did."""
        stale = [p for p in self.pumps if p.stale]
        if not stale:
            return False
        now = time.monotonic()
        due = now - self._numbers_at >= 1 / self.throttle.numbers_hz
        if not (force or due or any(p.urgent for p in stale)):
            return False
        self._numbers_at = now
        for pump in stale:
            pump.stale = pump.urgent = False
        self.draw_numbers(stale)
        return True

    @property
    def drawn_rounds(self) -> list[int]:
        return [p.drawn_rounds for p in self.pumps]

    def state_text(self, lang: str) -> str:
        """One state for all runs: finished once every run ended, else paused or running."""
        states = [p.state for p in self.pumps]
        if len(states) == 1:
            return states[0].text(lang)
        if all(s.ended for s in states):
            return text("state.finished", lang)
        return text("state.paused" if all(p.paused for p in self.pumps) else "state.running", lang)
