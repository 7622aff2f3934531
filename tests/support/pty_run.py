"""A program on a pseudo-terminal of a given size, with every byte it writes to the terminal kept.

Used where the bytes themselves matter: that no escape sequence from outside reaches the
terminal, and how many bytes a second the live view costs a slow link. The program gets
the pty as its controlling terminal (so resizes and Ctrl-C behave as in a real terminal)
and is ended by its process group id when the context closes.
"""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from tests.support.processes import stop


class PtyProcess:
    """A running program and the bytes it wrote so far (with their arrival times)."""

    def __init__(self, proc: subprocess.Popen[bytes], master: int) -> None:
        self.proc = proc
        self.master = master
        self.output = bytearray()
        self.chunks: list[tuple[float, int]] = []  # (monotonic time, bytes) per read
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # EIO: the program closed the terminal
                return
            if not data:
                return
            with self._lock:
                self.output += data
                self.chunks.append((time.monotonic(), len(data)))

    def text(self) -> str:
        """Everything written so far, decoded (bad bytes replaced)."""
        with self._lock:
            return self.output.decode("utf-8", errors="replace")

    def bytes_between(self, start: float, end: float) -> int:
        """Bytes that arrived in [start, end) (monotonic seconds)."""
        with self._lock:
            return sum(n for t, n in self.chunks if start <= t < end)

    def write(self, data: bytes) -> None:
        """Type into the terminal."""
        os.write(self.master, data)

    def resize(self, cols: int, rows: int) -> None:
        """Change the terminal's size (the program gets SIGWINCH)."""
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def wait_for(self, predicate: Callable[[str], bool], timeout: float = 30.0, what: str = "") -> str:
        """Poll the output until `predicate(text)` holds; fails with the output's tail."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            out = self.text()
            if predicate(out):
                return out
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"not in the output{': ' + what if what else ''} (exit {self.proc.poll()}):\n"
                             f"{self.text()[-3000:]!r}")

    def wait_exit(self, timeout: float = 20.0) -> int:
        """Wait for the program to end and the last bytes to be read; its exit code."""
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return code


@contextmanager
def pty_process(argv: Sequence[str], env: Mapping[str, str], cols: int = 80, rows: int = 24) -> Iterator[PtyProcess]:
    """Run `argv` on a new cols × rows pty; end it (by process group) when the context closes."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def controlling_terminal() -> None:  # runs in the child, after setsid
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(list(argv), stdin=slave, stdout=slave, stderr=slave, env=dict(env),
                            start_new_session=True, preexec_fn=controlling_terminal)
    os.close(slave)
    running = PtyProcess(proc, master)
    try:
        yield running
    finally:
        if proc.poll() is None:
            stop(proc, group=True)
        running._reader.join(timeout=5)
        os.close(master)
