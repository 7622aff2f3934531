"""Requests in flight: their deadlines, enforced by shutting their sockets down.

httpx's timeouts are per operation, so a server that sends a byte a second, endless
`100 Continue` lines or only SSE comments never trips one. Each request specview makes is a
`Flight`: a deadline for the whole request and, for a stream, one for its next event; the
sockets it uses, learnt from httpcore's `trace` extension as they connect (connections are
not kept alive, so every request connects and is seen); and, once it ended early, why. One
watchdog thread shuts the sockets of every flight past its deadline down, which wakes a reader
blocked in recv at once; the request then fails, and its caller reads `expired` to say why.
`cancel(owner)` does the same from any thread, for a run being stopped (before the headers
too). `oldest()` says what specview is waiting for, for the line shown before the UI starts.
"""

from __future__ import annotations

import contextlib
import math
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from specview.texts.catalog import Phrase

_SOCKET_EVENTS = ("connection.connect_tcp.complete", "connection.start_tls.complete")


class Flight:
    """One request: what it asks, its deadlines, its sockets, and why it ended early."""

    def __init__(self, owner: object, root: str, what: str | Phrase, seconds: float, kind: str) -> None:
        self.owner, self.root, self.what = owner, root, what
        self.started = time.monotonic()
        self.seconds = seconds  # the whole request's limit (its `kind`: "request", "stream")
        self.kind = kind
        self._end = self.started + seconds
        self._next: tuple[float, float, str] | None = None  # (deadline, limit, kind) of the next step
        self.expired: tuple[str, float] | None = None  # (kind, seconds) of the deadline that passed
        self.cancelled = False
        self.bytes_since_progress = 0  # raw bytes read since the last step (a trickle's telltale)
        self._held_at: float | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    @property
    def deadline(self) -> float:
        """When the watchdog ends it (inf while the caller holds an event)."""
        step = self._next
        if self._held_at is not None:
            return math.inf
        return self._end if step is None else min(self._end, step[0])

    def expect(self, seconds: float, kind: str) -> None:
        """The next step (a stream's headers, then each event) must come within `seconds`."""
        self._next = (time.monotonic() + seconds, seconds, kind)
        self.bytes_since_progress = 0

    def hold(self) -> None:
        """The caller holds an event and reads nothing meanwhile (a paused view may hold it for
        minutes): no deadline runs until `resume`, the whole request's included."""
        self._held_at = time.monotonic()

    def resume(self, seconds: float, kind: str) -> None:
        """Reading again: the whole request's deadline moves by the time held; the next step
        must come within `seconds`."""
        if self._held_at is not None:
            self._end += time.monotonic() - self._held_at
            self._held_at = None
        self.expect(seconds, kind)

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's `trace` extension: adopt each socket the request connects."""
        if event not in _SOCKET_EVENTS:
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._sockets.append(sock)
            ended = self.expired is not None or self.cancelled
        if ended:  # expired or stopped while it was still connecting
            _shut(sock)

    def expire(self) -> None:
        """The watchdog's verdict: record which deadline passed, and unblock the reader."""
        step = self._next
        with self._lock:
            if step is not None and step[0] <= self._end:
                self.expired = (step[2], step[1])
            else:
                self.expired = (self.kind, self.seconds)
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def cancel(self) -> None:
        """Stopped on purpose: unblock the reader, whatever it waits for."""
        with self._lock:
            self.cancelled = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    """Wake whoever reads `sock` (shutdown does, close alone does not); httpcore closes it."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class _Watchdog:
    """One daemon thread for the process: sleeps until the earliest deadline, expires what is due."""

    def __init__(self) -> None:
        self._flights: set[Flight] = set()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, flight: Flight) -> None:
        with self._cond:
            self._flights.add(flight)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="specview-deadlines", daemon=True)
                self._thread.start()
            self._cond.notify()

    def remove(self, flight: Flight) -> None:
        with self._cond:
            self._flights.discard(flight)

    def flights(self, owner: object | None = None) -> list[Flight]:
        with self._cond:
            return [f for f in self._flights if owner is None or f.owner is owner]

    def _run(self) -> None:
        while True:
            with self._cond:
                now = time.monotonic()
                due = [f for f in self._flights if f.deadline <= now]
                self._flights.difference_update(due)
                if not due:
                    soonest = min((d for f in self._flights if (d := f.deadline) < math.inf), default=None)
                    # a deadline moved later (a stream's next event) wakes this early: harmless
                    self._cond.wait(None if soonest is None else soonest - now)
            for flight in due:
                flight.expire()


_WATCHDOG = _Watchdog()


@contextmanager
def in_flight(owner: object, root: str, what: str | Phrase, seconds: float, kind: str = "request") -> Iterator[Flight]:
    """A Flight watched for the length of the block."""
    flight = Flight(owner, root, what, seconds, kind)
    _WATCHDOG.add(flight)
    try:
        yield flight
    finally:
        _WATCHDOG.remove(flight)


def cancel(owner: object) -> None:
    """Unblock every request `owner` has in flight (any thread)."""
    for flight in _WATCHDOG.flights(owner):
        flight.cancel()


def oldest() -> Flight | None:
    """The request waited on longest, if any is in flight."""
    return min((f for f in _WATCHDOG.flights() if not f.cancelled), key=lambda f: f.started, default=None)
