"""Run specview as a user would, under limits: in a pseudo-terminal (every byte it writes is
recorded) or with pipes, with a cap on its address space and on its time.

`run_cli` is for commands that print and exit; `run_tty` starts the UI in a pty of a fixed
size, waits for something on the screen, presses keys, and returns everything the terminal
received. Both kill the process (group) when time runs out and say so.
"""

from __future__ import annotations

import fcntl
import os
import pty
import resource
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LIMIT = 768 * 2**20  # address space: Python, Textual and numpy fit (the UI runs in 512 MiB)
TIME_LIMIT = 90.0  # seconds: generous on a busy machine; a runaway case takes far longer


@dataclass
class Run:
    """What a run left behind."""

    returncode: int
    stdout: bytes
    stderr: bytes
    elapsed: float
    timed_out: bool
    after_last_key: float | None = None  # seconds from the last key typed to the exit
    screens: list[str] = field(default_factory=list)  # the screen as a person saw it before each key

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    def saw(self, text: str) -> bool:
        """`text` was on one line of one of the screens."""
        return any(text in screen for screen in self.screens)

    def notified(self, text: str) -> bool:
        """`text` was in a notification (toasts wrap anywhere: compared without whitespace)."""
        return any(shows(screen, text) for screen in self.screens)


def toasts(screen: str) -> list[str]:
    """The text of every notification on a screen, whitespace removed."""
    found = []
    block: list[str] = []
    for line in [*screen.splitlines(), ""]:
        _, mark, rest = line.partition("▌")
        rest = rest.rstrip().rstrip("│─╮╯╭╰▎").rstrip()  # the border of a panel behind the toast
        if mark and rest:
            block.append("".join(rest.split()))
        elif block:
            found.append("".join(block))
            block = []
    return found


def shows(screen: str, text: str) -> bool:
    """`text` is on one line of `screen`, or in one of its notifications."""
    wanted = "".join(text.split())
    return any(text in line for line in screen.splitlines()) or any(wanted in t for t in toasts(screen))



def _limits(memory: int, file_size: int | None = None) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if file_size is not None:  # a full disk, for files only (Python ignores SIGXFSZ: a write fails with EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))


def base_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A clean environment: its own config, state and log folders under `home`, no keys."""
    env = {k: v for k, v in os.environ.items()
           if not any(word in k.upper() for word in ("KEY", "TOKEN", "SECRET", "PASSWORD"))}
    env.update({
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"), "SPECVIEW_CONFIG": str(home / "config" / "specview" / "config.toml"),
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "TERM": "xterm-256color", "COLORTERM": "truecolor",
        "TEXTUAL_ANIMATIONS": "none", "PYTHONPATH": str(ROOT),
    })
    env.update(extra or {})
    return env


def run_cli(args: Sequence[str], env: Mapping[str, str], *, memory: int = MEMORY_LIMIT,
            timeout: float = TIME_LIMIT) -> Run:
    """`python -m specview ARGS` with pipes, under the limits."""
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "specview", *args], capture_output=True, env=dict(env),
                              timeout=timeout, cwd=ROOT, preexec_fn=lambda: _limits(memory))
    except subprocess.TimeoutExpired as exc:
        return Run(-9, exc.stdout or b"", exc.stderr or b"", time.monotonic() - started, True)
    return Run(done.returncode, done.stdout, done.stderr, time.monotonic() - started, False)


def run_tty(args: Sequence[str], env: Mapping[str, str], *, keys: Sequence[tuple[bytes | str, bytes]] = (),
            size: tuple[int, int] = (120, 36), memory: int = MEMORY_LIMIT, timeout: float = TIME_LIMIT,
            settle: float = 0.5, file_size: int | None = None) -> Run:
    """Start `python -m specview ARGS` in a pty of `size` (columns, rows). For each (wait_for, key)
    in `keys`: once `wait_for` has appeared (bytes: in the output after the previous key; str: on
    the screen, see `shows`), wait `settle`
    seconds (and until the screen is quiet for 0.3 s, at most 3 s more) and type `key`. Returns
    every byte the terminal received (as `stdout`) and the screen before each key (`screens`).
    `file_size` caps the size of any file it writes (RLIMIT_FSIZE), as a full disk would."""
    cols, rows = size
    pid, fd = pty.fork()
    if pid == 0:  # the child: its terminal's size (before specview can ask it), limits, then specview
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            _limits(memory, file_size)
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "specview", *args], dict(env))
        finally:
            os._exit(127)
    import pyte

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    screen = pyte.Screen(cols, rows)
    terminal = pyte.ByteStream(screen)
    screens: list[str] = []
    started = time.monotonic()
    output = bytearray()
    pending = list(keys)
    seen_at = 0  # search for the next key's cue only in what came after the last key
    cue_time: float | None = None
    last_key: float | None = None
    last_output = started
    status: int | None = None
    timed_out = False
    while True:
        now = time.monotonic()
        if now - started > timeout:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                chunk = b""
            if not chunk:
                break
            output += chunk
            terminal.feed(chunk)
            last_output = time.monotonic()
        if pending:
            cue, key = pending[0]
            if cue_time is None:
                found = shows("\n".join(screen.display), cue) if isinstance(cue, str) else cue in output[seen_at:]
                cue_time = time.monotonic() if found else None
            now = time.monotonic()
            # after the cue: `settle` s, and the screen quiet for a moment (a frame may still be drawing)
            quiet = now - last_output >= 0.3 or now - cue_time >= settle + 3.0 if cue_time is not None else False
            if cue_time is not None and now - cue_time >= settle and quiet:
                screens.append("\n".join(screen.display))
                os.write(fd, key)
                last_key = time.monotonic()
                pending.pop(0)
                seen_at, cue_time = len(output), None
        done_pid, raw = os.waitpid(pid, os.WNOHANG)
        if done_pid:
            status = raw
            ended = time.monotonic()
            # read what is still buffered
            while select.select([fd], [], [], 0.1)[0]:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                output += chunk
            break
    if status is None:
        _, status = os.waitpid(pid, 0)
        ended = time.monotonic()
    os.close(fd)
    code = os.waitstatus_to_exitcode(status)
    after = None if last_key is None else ended - last_key
    if not screens or timed_out:
        screens.append("\n".join(screen.display))
    return Run(code, bytes(output), b"", time.monotonic() - started, timed_out, after, screens)
