"""Call a function every `interval` seconds until stopped: the one polling loop specview has.

The remote backend's /metrics poll, the single-server monitor, headless `watch` and the fleet
watch all poll this way. A `Poller` calls `poll` on a fixed cadence (after a poll that overruns its
slot the next one begins at once, never a burst of catch-up polls, and no two polls begin less
than an interval apart), at most `max_polls` times,
and hands each answer to `sink` as it comes — a `SpecviewError` raised by `poll` is handed
over as data too, never raised on the polling thread (`stop_on_error` ends the loop after it).
`stop()` is interruptible: it wakes the wait at once and calls `interrupt` (e.g. shutting the
socket of a scrape stuck on a server), so stopping never waits for a deadline.

`run()` is the loop on the caller's thread (a Textual thread worker, or a headless command);
`start()` runs it on a daemon thread of its own. `in_flight_since` says when the poll now in
progress began (the monitor's "stalled since …").

Not the Session's producer (kernel/session.py): that one pulls a backend's round iterator as
fast as the consumer drains it, under back-pressure and a pause/step gate, with no interval.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from specview.kernel.errors import SpecviewError

T = TypeVar("T")


class Poller(Generic[T]):
    """`poll()` every `interval` s into `sink` until `stop()`, `max_polls` polls, or (with
    `stop_on_error`) the first error."""

    def __init__(self, poll: Callable[[], T], sink: Callable[[T | SpecviewError], None], interval: float, *,
                 max_polls: int | None = None, first_after: float = 0.0, stop_on_error: bool = False,
                 interrupt: Callable[[], None] | None = None, name: str = "specview-poller") -> None:
        if interval <= 0:
            raise ValueError("interval must be positive")
        self._poll, self._sink = poll, sink
        self.interval = interval
        self._max_polls = max_polls
        self._first_after = first_after  # seconds before the first poll (0: at once)
        self._stop_on_error = stop_on_error
        self._interrupt = interrupt
        self._name = name
        self._stop = threading.Event()
        self._paused = threading.Event()
        self._thread: threading.Thread | None = None
        self._asking: tuple[float, float] | None = None
        self.polls = 0

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    @property
    def paused(self) -> bool:
        return self._paused.is_set()

    @property
    def in_flight_since(self) -> tuple[float, float] | None:
        """(monotonic, wall clock) the poll in progress began; None between polls."""
        return self._asking

    def pause(self) -> None:
        """Skip the polls that fall due until `resume()` (the one in flight finishes)."""
        self._paused.set()

    def resume(self) -> None:
        self._paused.clear()

    def run(self) -> None:
        """The loop, on this thread; returns once stopped or done."""
        due = time.monotonic() + self._first_after
        while not self._stop.is_set():
            wait = due - time.monotonic()
            if wait > 0 and self._stop.wait(wait):
                return
            started = time.monotonic()
            if not self._paused.is_set() and not self._once():
                return
            # the next slot, but never sooner than an interval after this poll began: a late
            # poll's successor waits its interval (each sample spans one, at least)
            due = max(due + self.interval, started + self.interval)

    def _once(self) -> bool:
        """One poll into the sink; False when the loop should end."""
        if self._max_polls is not None and self.polls >= self._max_polls:
            return False
        self.polls += 1
        self._asking = (time.monotonic(), time.time())
        result: T | SpecviewError
        try:
            result = self._poll()
        except SpecviewError as exc:
            result = exc
        finally:
            self._asking = None
        if self._stop.is_set():  # a poll cut short by stopping: nobody waits for its answer
            return False
        self._sink(result)
        if isinstance(result, SpecviewError) and self._stop_on_error:
            return False
        return self._max_polls is None or self.polls < self._max_polls

    def start(self) -> None:
        """Run the loop on a daemon thread of its own."""
        self._thread = threading.Thread(target=self.run, name=self._name, daemon=True)
        self._thread.start()

    def stop(self, wait: float | None = None) -> None:
        """End the loop (any thread, the sink included): the wait wakes at once and a poll in
        flight is interrupted. `wait` joins the thread `start()` made for that long."""
        self._stop.set()
        if self._interrupt is not None:  # nothing in flight: a no-op
            self._interrupt()
        thread = self._thread
        if wait is not None and thread is not None and thread is not threading.current_thread():
            thread.join(wait)
