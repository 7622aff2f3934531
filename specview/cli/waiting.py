"""Waiting on a server before the UI starts: said on stderr, and `q` or Ctrl-C gives up at once.

Building a remote backend (the model list, detection) or a watch (the first /metrics) asks
the server before any screen exists. In a terminal, once a request has waited ANNOUNCE_S,
one status line on stderr names the server, what it was asked and for how long, and how to
give up; it is rewritten in place each second and erased when the wait ends (an error line
then stands alone, the UI starts on a clean screen). Meanwhile the terminal reads keys at
once without echo (Ctrl-C still signals): `q` sends SIGINT to the main thread, so a request
blocked in recv or connect ends at once, and the command exits 0 at once as `q` does in the
UI (quick_exit.Quit); Ctrl-C exits 130 as anywhere else. Without a terminal nothing of this happens (the request
deadlines bound every wait; `--json` output stays clean).
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import sys
import termios
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from specview.backends.remote import deadline
from specview.boundary.text import sanitize
from specview.cli.quick_exit import Quit, arm
from specview.kernel.runspec import RunSpec
from specview.texts.catalog import fill

ANNOUNCE_S = 0.3  # a wait shorter than this is not worth a line
_TICK_S = 0.1
_ERASE = "\r\x1b[K"  # back to the line's start, erase it (our own sequence, no input in it)


def waiting_on(specs: Sequence[RunSpec], lang: str) -> contextlib.AbstractContextManager[None]:
    """`announced_wait` while remote backends are built (the other kinds ask no server)."""
    return announced_wait(lang) if any(spec.kind == "openai" for spec in specs) else contextlib.nullcontext()


@contextmanager
def announced_wait(lang: str) -> Iterator[None]:
    """Run the block with the wait announced and `q` able to end it (in a terminal)."""
    try:
        fd = sys.stdin.fileno()
        interactive = os.isatty(fd) and sys.stderr.isatty()
    except (OSError, ValueError):  # no stdin at all
        interactive = False
    if not interactive:
        yield
        return
    waiter = _Waiter(fd, lang)
    waiter.start()
    try:
        yield
    except KeyboardInterrupt:
        arm()  # the user gave up: the process ends at once, with 0 for q, 130 for Ctrl-C
        if waiter.quit:
            raise Quit from None
        raise
    finally:
        waiter.stop()


class _Waiter:
    """The thread that reads keys and keeps the status line."""

    def __init__(self, fd: int, lang: str) -> None:
        self._fd, self._lang = fd, lang
        self._saved: list[Any] | None = None
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        self._shown = ""
        self._thread = threading.Thread(target=self._run, name="specview-wait", daemon=True)
        self.quit = False

    def start(self) -> None:
        with contextlib.suppress(termios.error):
            self._saved = termios.tcgetattr(self._fd)
            keys = termios.tcgetattr(self._fd)
            keys[3] &= ~(termios.ICANON | termios.ECHO)  # keys at once, not echoed; ISIG kept: Ctrl-C signals
            keys[6][termios.VMIN], keys[6][termios.VTIME] = 1, 0
            termios.tcsetattr(self._fd, termios.TCSANOW, keys)
        self._thread.start()

    def stop(self) -> None:
        with self._lock:  # no SIGINT once stopping began
            self._done.set()
        os.write(self._wake_w, b"x")
        self._thread.join(1.0)
        os.close(self._wake_r)
        os.close(self._wake_w)
        if self._saved is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(self._fd, termios.TCSANOW, self._saved)
        if self._shown:
            _write(_ERASE)

    def _run(self) -> None:
        while not self._done.is_set():
            ready = select.select([self._fd, self._wake_r], [], [], _TICK_S)[0]
            if self._fd in ready and self._keys_say_quit():
                with self._lock:
                    if not self._done.is_set():
                        self.quit = True
                        # the main thread: a request blocked in recv/connect returns EINTR, and the
                        # handler's KeyboardInterrupt unwinds it
                        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
                return
            self._announce()

    def _keys_say_quit(self) -> bool:
        try:
            typed = os.read(self._fd, 64)
        except OSError:
            return False
        return b"q" in typed or b"Q" in typed

    def _announce(self) -> None:
        flight = deadline.oldest()
        if flight is None:
            return
        waited = time.monotonic() - flight.started
        if waited < ANNOUNCE_S:
            return
        line = fill("net.waiting", self._lang, server=flight.root, what=flight.what, seconds=int(waited))
        # one terminal row at most, or erasing it would leave the rows above
        line = sanitize(line, None, one_line=True)[: shutil.get_terminal_size().columns - 1]
        if line != self._shown:
            _write(_ERASE + line)
            self._shown = line


def _write(text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(text)
        sys.stderr.flush()
