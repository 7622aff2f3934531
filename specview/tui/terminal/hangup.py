"""The terminal going away without a SIGHUP: the app ends as on a hangup.

Run under `sh -c` in a terminal multiplexer that is then killed, specview gets no SIGHUP: the
kernel sends it to the session leader (the shell), which dies of it. The terminal is hung up:
reads give end-of-file, writes fail with EIO. Textual's writer thread dies on the first failed
write, the app's next writes fill its bounded queue and block the event loop for good, so
SIGTERM (acted on by that loop) is never acted on, and the input thread spins on end-of-file.

So the terminal's output never raises (a failed write drops the output and counts as a
hangup), and a small thread watches the terminal for one (poll's POLLHUP, which a hung-up
terminal, or a pipe whose writer closed, reports). Either way the app is asked to exit as on
SIGHUP, the way `q` quits: runs stopped, recordings closed. Standard output and error are then
pointed at /dev/null, so nothing fails when the app restores the terminal or Python flushes
them at exit.
"""

from __future__ import annotations

import os
import select
import signal
import threading
from collections.abc import Callable
from typing import IO

HANGUP_EXIT = 128 + signal.SIGHUP  # the exit code a shell reports for SIGHUP
WATCH_S = 0.25  # how often the watching thread looks whether it should stop
_HANGUP = select.POLLHUP | select.POLLERR | select.POLLNVAL


class Hangup:
    """Watches the terminal (`fds`: its input and output) while the app drives it."""

    def __init__(self, fds: tuple[int, ...]) -> None:
        self._fds = tuple(fd for fd in dict.fromkeys(fds) if os.isatty(fd))
        self._outputs = tuple(fd for fd in (1, 2) if os.isatty(fd))  # a hung-up terminal is no tty any more
        self._on_hangup: Callable[[], None] | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._happened = False

    def output(self, file: IO[str]) -> IO[str]:
        """`file` (the terminal's output) for Textual's writer thread: it never raises."""
        return _Output(file, self.lost)  # type: ignore[return-value]

    def start(self, on_hangup: Callable[[], None]) -> None:
        """Watch until `stop()`; `on_hangup` is called once, from another thread."""
        self._on_hangup = on_hangup
        self._stop = threading.Event()  # each watch its own: one left from before ends on its own
        if self._fds:
            threading.Thread(target=self._watch, args=(self._stop,), name="specview-hangup", daemon=True).start()

    def stop(self) -> None:
        """Stop watching (the app leaves the terminal: it quits, or Ctrl-Z suspends it). Not
        waited for: the thread sees it within WATCH_S, and a quit is not held up."""
        self._stop.set()

    def _watch(self, stop: threading.Event) -> None:
        poller = select.poll()
        for fd in self._fds:
            poller.register(fd, 0)  # no events asked: only a hangup or an error is reported
        while not stop.is_set():
            if any(events & _HANGUP for _, events in poller.poll(WATCH_S * 1000)):
                self.lost()
                return

    def lost(self) -> None:
        """The terminal is gone: quiet its outputs, then ask the app to exit (once)."""
        with self._lock:
            if self._happened:
                return
            self._happened = True
        try:
            null = os.open(os.devnull, os.O_WRONLY)
        except OSError:
            null = -1
        if null >= 0:
            for fd in self._outputs:
                os.dup2(null, fd)
            os.close(null)
        if self._on_hangup is not None and not self._stop.is_set():
            self._on_hangup()


class _Output:
    """A terminal output whose failed write or flush (EIO, EPIPE) drops the text and reports
    the loss instead of raising, so Textual's writer thread lives on."""

    def __init__(self, file: IO[str], lost: Callable[[], None]) -> None:
        self._file = file
        self._lost = lost

    def write(self, text: str) -> int:
        try:
            return self._file.write(text)
        except (OSError, ValueError):  # ValueError: the file was closed under us
            self._lost()
            return len(text)

    def flush(self) -> None:
        try:
            self._file.flush()
        except (OSError, ValueError):
            self._lost()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return self._file.isatty()
