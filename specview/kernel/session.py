"""Session: runs a backend on a worker thread into a bounded buffer; the consumer folds Metrics.

The producer blocks when the buffer holds `buffer_tokens` tokens (back-pressure, nothing
dropped): counted in tokens, not rounds, so runs with short rounds (γ 1) and long ones (γ 7)
get the same share of each frame when several share a screen. Pause and
single-step gate the producer between rounds. Errors are handed to the consumer as data.

Every item is told apart in one place (kernel/stream_kinds.py: the session is a StreamFold); a
reconciling backend's request in progress is held by kernel/request_fold.py.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from specview.boundary.bounds import MAX_HELD_ROUNDS
from specview.kernel.backend import Interruptible
from specview.kernel.errors import SpecviewError, describe_error
from specview.kernel.events import Calibration, Reconcile, Round, StreamItem
from specview.kernel.gamma_choice import GammaChoice
from specview.kernel.kept_rounds import KeptRounds
from specview.kernel.masked_items import masked, masker
from specview.kernel.metrics import Metrics
from specview.kernel.request_fold import RequestFold
from specview.kernel.stream_kinds import fold_item, item_tokens, kind_of
from specview.kernel.totals import CrossChecked, Totals
from specview.texts.catalog import Phrase

if TYPE_CHECKING:
    from specview.kernel.backend import Backend

RoundSink = Callable[[StreamItem], None]


@dataclass(frozen=True, slots=True)
class Drained:
    """What one pump tick takes from the session."""

    rounds: list[Round]
    error: Phrase | str | None  # a SpecviewError's words, rendered where it is shown (in its language)
    finished: bool
    reconciled: bool = False  # the history was replaced: redraw from `Session.history`


def _reason(exc: BaseException) -> Phrase | str:
    """Why a run stopped: a SpecviewError's words still to be put in a language, anything else
    (a bug) with its type."""
    return exc.phrase if isinstance(exc, SpecviewError) else describe_error(exc)


class Session:
    """One run of one backend, shared by the live view and the headless commands."""

    def __init__(self, backend: Backend, *, buffer_tokens: int = 16_384, window: int = 64,
                 keep_rounds: int = 0) -> None:
        self.backend = backend
        self.metrics = Metrics(window=window)
        self._buffer: deque[StreamItem] = deque()
        # The rounds drawn so far: the last `keep_rounds` of any run (what an export of the run
        # holds); for a backend that may reconcile, at least the last MAX_HELD_ROUNDS (what a
        # reconcile redraws).
        self._kept = KeptRounds()
        self._calibrations: list[Calibration] = []
        self._request = RequestFold()  # a reconciling backend's request in progress
        self.keep_rounds = keep_rounds
        self._capacity = buffer_tokens
        # tokens in the buffer = put - taken, each counted by one side only (see _put)
        self._put_tokens = 0  # written by the producer alone
        self._taken_tokens = 0  # written by the consumer alone, under the lock
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._running = threading.Event()
        self._running.set()
        self._steps = 0
        # where the producer waits, for callers that must know a run is still (not only slow)
        self._at_gate = False
        self._at_full = False
        self._paused_at: float | None = None
        self._paused_total = 0.0
        self._error: Phrase | str | None = None
        self._finished = False
        self._thread: threading.Thread | None = None
        self._sinks: list[RoundSink] = []
        self.produced = 0

    def add_sink(self, sink: RoundSink) -> None:
        """Call `sink` on the producer thread for every round, reconcile and calibration (e.g. a recorder)."""
        self._sinks.append(sink)

    # producer side -------------------------------------------------------
    def fail(self, message: Phrase | str) -> None:
        """End before starting (e.g. the recording cannot be written): the consumer sees `message`."""
        with self._cond:
            self._error = message
            self._finished = True
            self._cond.notify_all()

    def start(self) -> None:
        """Start the producer thread (not after `fail`)."""
        if self._finished:
            return
        self._thread = threading.Thread(target=self._produce, name="specview-backend", daemon=True)
        self._thread.start()

    def _produce(self) -> None:
        mask = masker()
        failed: Phrase | str | None = None
        try:
            rounds = iter(self.backend.rounds(self._stop))
            while self._gate():
                # one step shows one round: what a backend says besides its rounds, and a round the
                # mask holds back (its text may begin a secret), go on to the next round
                shown = False
                while not shown:
                    rnd = next(rounds, None)
                    if rnd is None:
                        return
                    if type(rnd) is not Round and not kind_of(rnd).stepped:
                        if not self._deliver([rnd]):
                            return
                        continue
                    if self._paused_total and type(rnd) is Round and not self.backend.info.virtual_clock:
                        rnd = replace(rnd, t_wall=rnd.t_wall - self._paused_total)
                    out = masked(mask, rnd)
                    if not self._deliver(out):
                        return
                    # unmasked, `out` is this round alone (a stepped kind: the rest went on above)
                    shown = mask is None or any(kind_of(item).stepped for item in out)
        except Exception as exc:  # noqa: BLE001 - every failure reaches the user as a message
            self._error = failed = _reason(exc)
        finally:
            try:
                if mask is not None:  # the rounds before a failure still count
                    self._deliver(mask.flush())
                if failed is not None:
                    self._ended(failed)
            except Exception as exc:  # noqa: BLE001 - a sink (the recorder) failed
                self._error = self._error or _reason(exc)
            with self._cond:
                self._finished = True
                self._cond.notify_all()

    def _ended(self, reason: Phrase | str) -> None:
        """Tell each sink that listens (a recorder: its end record) why the run ended early."""
        for sink in self._sinks:
            if (ended := getattr(sink, "ended", None)) is not None:
                ended(reason)

    def _deliver(self, items: Sequence[StreamItem]) -> bool:
        """Buffer each item and hand it to the sinks; False once stopped."""
        for item in items:
            if not self._put(item):
                return False
            for sink in self._sinks:
                sink(item)
        return True

    def _put(self, rnd: StreamItem) -> bool:
        size = item_tokens(rnd)
        if self._put_tokens - self._taken_tokens >= self._capacity:
            with self._cond:  # full: wait for the consumer, which takes and notifies under this lock
                while self._put_tokens - self._taken_tokens >= self._capacity and not self._stop.is_set():
                    self._at_full = True
                    self._cond.wait(0.1)
                self._at_full = False
        if self._stop.is_set():
            return False
        # Room: no lock. One producer appends and counts what it put, the consumer counts what it
        # took, and a deque's append and popleft are atomic; a flat-out producer puts thousands of
        # rounds a second, each through a lock before.
        self._buffer.append(rnd)
        self._put_tokens += size
        if type(rnd) is Round:
            self.produced += 1
        return True

    def _gate(self) -> bool:
        """Before asking for the next round: block while paused, unless a step is owed."""
        if self._running.is_set():  # running: nothing to count (a flat-out producer asks this per round)
            return not self._stop.is_set()
        with self._cond:
            while not self._running.is_set() and self._steps == 0:
                if self._stop.is_set():
                    return False
                self._at_gate = True
                self._cond.wait(0.1)
            self._at_gate = False
            if not self._running.is_set():
                self._steps -= 1
        return not self._stop.is_set()

    # consumer side -------------------------------------------------------
    def drain(self, limit: int | None = None, *, wake: bool = True) -> Drained:
        """Take buffered rounds (all, or up to `limit`) and fold them into the metrics. A producer
        waiting on a full buffer is told there is room, unless `wake` is False: then it waits for
        `wake()` (or its next look, at most 0.1 s later)."""
        with self._cond:
            buffer = self._buffer
            n = len(buffer) if limit is None else min(limit, len(buffer))
            items = [buffer.popleft() for _ in range(n)]
            self._taken_tokens += sum(map(item_tokens, items))
            if wake:
                self._cond.notify_all()
            finished = self._finished and not self._buffer
        taken: list[Round] = []
        reconciled = False
        run: list[Round] = []  # rounds in a row, folded together (what comes between them folds in order)
        for item in items:
            if type(item) is Round:
                run.append(item)
                continue
            if run:
                self._fold_rounds(run)
                taken += run
                run = []
            reconciled = reconciled or type(item) is Reconcile
            fold_item(self, item)
        if run:
            self._fold_rounds(run)
            taken += run
        return Drained(taken, self._error, finished, reconciled)

    def wake(self) -> None:
        """Tell a producer waiting on a full buffer that a drain made room."""
        with self._cond:
            self._cond.notify_all()

    @property
    def history(self) -> list[Round]:
        """The rounds kept so far (see `__init__`): the last ones, oldest first."""
        return self._kept.rounds

    @property
    def dropped_rounds(self) -> int:
        """Rounds no longer in `history` because of what it keeps."""
        return self._kept.dropped

    @property
    def calibrations(self) -> tuple[Calibration, ...]:
        """The run's calibrations so far (an export records them: its speedup's baseline)."""
        return tuple(self._calibrations)

    # the session as a StreamFold (kernel/stream_kinds.py) ------------------
    def add_round(self, rnd: Round) -> None:
        """Fold one round in (a drain folds rounds in a row together: `_fold_rounds`)."""
        self._fold_rounds((rnd,))

    def calibrate(self, cal: Calibration) -> None:
        """A calibration: into every fold (a reconcile leaves it as it is), and kept for an export
        (a run calibrates rarely)."""
        self._said(cal)
        self._calibrations.append(cal)

    def cross_checked(self, item: CrossChecked) -> None:
        """A server's counters beside the counts shown: no reconcile replaces it."""
        self._said(item)

    def gamma_chosen(self, item: GammaChoice) -> None:
        """A `--gamma auto` decision: no reconcile replaces it."""
        self._said(item)

    def close_request(self, totals: Totals) -> None:
        """A request's totals: they close it (Invalid, with nothing changed, past the bound on a count)."""
        self.metrics.close_request(totals)
        self._request.close(totals)

    def reconcile(self, item: Reconcile) -> None:
        """Replace the request's rounds from `first_index` on by the reconcile's, in the metrics
        (kernel/request_fold.py) and in the history."""
        done = self._request.reconcile(self.metrics, item)
        self.metrics = done.metrics
        self._kept.redraw(done.replaced, done.first, item.rounds, self._keep())

    def _said(self, item: Calibration | CrossChecked | GammaChoice) -> None:
        """What no reconcile replaces: into the run's fold and those a reconcile starts from."""
        for metrics in (self.metrics, *self._request.copies()):
            fold_item(metrics, item)

    def _keep(self) -> int:
        """How many rounds `history` keeps (0: none)."""
        return self.keep_rounds or (MAX_HELD_ROUNDS if self.backend.info.reconciles else 0)

    def _fold_rounds(self, rounds: Sequence[Round]) -> None:
        """Fold rounds in a row into the metrics and the history (kept as `_keep` says); a
        reconciling backend's are held as its request's."""
        if self.backend.info.reconciles:
            self._request.hold(self.metrics, rounds)
        self.metrics.add_rounds(rounds)
        self._kept.extend(rounds, self._keep())

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    @property
    def parked(self) -> bool:
        """Paused, the producer waiting at the gate and no step owed: nothing more comes until a
        resume or a step (a paused run is still, not merely slow to deliver its round in flight)."""
        with self._cond:
            return self._at_gate and self._steps == 0 and not self._running.is_set()

    @property
    def backed_up(self) -> bool:
        """The producer waits for room in a full buffer (back-pressure holds it)."""
        with self._cond:
            return self._at_full and self._put_tokens - self._taken_tokens >= self._capacity

    def pause(self) -> None:
        with self._cond:
            if self._running.is_set():
                self._running.clear()
                self._paused_at = time.monotonic()

    def resume(self) -> None:
        with self._cond:
            if not self._running.is_set():
                if self._paused_at is not None:
                    self._paused_total += time.monotonic() - self._paused_at
                self._paused_at = None
                self._running.set()
                self._cond.notify_all()

    def step(self) -> None:
        """While paused, let exactly one more round through."""
        with self._cond:
            self._steps += 1
            self._cond.notify_all()

    def stop(self, timeout: float = 5.0, close: bool = True) -> None:
        """Stop the producer; release the backend unless it will be reused (restart).

        A backend blocked on the network (a stalled stream) is interrupted first, so stopping
        takes milliseconds instead of waiting for a read timeout.
        """
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if isinstance(self.backend, Interruptible):
            self.backend.interrupt()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        if close:
            self.backend.close()

    def run_headless(self, max_rounds: int | None = None) -> Iterator[Round]:
        """Run the backend on this thread, folding metrics; for bench and replay --json."""
        mask = masker()
        try:
            try:
                for produced in self.backend.rounds(self._stop):
                    for item in masked(mask, produced):
                        if (rnd := self._take(item)) is not None:
                            yield rnd
                        if max_rounds is not None and self.metrics.rounds >= max_rounds:
                            return
            except SpecviewError as exc:
                held = mask.flush() if mask is not None else []
                for item in held:  # rounds held back before the failure still count
                    if (rnd := self._take(item)) is not None:
                        yield rnd
                self._ended(exc.phrase)
                raise
            for item in mask.flush() if mask is not None else []:
                if (rnd := self._take(item)) is not None:
                    yield rnd
        finally:
            self._stop.set()
            self.backend.close()

    def _take(self, item: StreamItem) -> Round | None:
        """Headless: hand `item` to the sinks and fold it; the round to yield, if it is one."""
        for sink in self._sinks:
            sink(item)
        if type(item) is Round:  # nearly every item: no lookup
            self._fold_rounds((item,))
            return item
        fold_item(self, item)
        return None
