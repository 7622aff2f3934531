"""A program in a real terminal: one tmux server of its own, one pane, keys in, screen out.

What a person sees is what tmux drew: `capture()` returns the pane's text, and with
`escapes=True` its colours and attributes as SGR sequences (strike-through is SGR 9). The tmux
server has its own socket and an empty config (no user or system file is read), and is ended
by process id when the context closes, together with whatever still runs in its pane.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

SGR = re.compile(r"\x1b\[([0-9;:]*)m")
EXIT = re.compile(r"\[tmux_pane: exit (\d+)\]")


class TmuxPane:
    """One pane of a private tmux server."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        """Run a tmux command against this server; its stdout."""
        done = subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True, text=True,
                              timeout=30, check=True)
        return done.stdout

    def capture(self, escapes: bool = False) -> str:
        """The visible screen, one line per row (with SGR sequences when `escapes`)."""
        return self.tmux("capture-pane", "-p", "-t", "0", *(["-e"] if escapes else []))

    def keys(self, *keys: str) -> None:
        """Press keys (tmux key names: Space, Escape, F1, q, …)."""
        self.tmux("send-keys", "-t", "0", *keys)

    def resize(self, width: int, height: int) -> None:
        """Resize the window, as a person dragging the terminal's corner would."""
        self.tmux("resize-window", "-t", "0", "-x", str(width), "-y", str(height))

    def value(self, fmt: str) -> str:
        """A tmux format of the pane, e.g. `#{pane_dead}`."""
        return self.tmux("display-message", "-p", "-t", "0", fmt).strip()

    @property
    def dead(self) -> bool:
        return self.value("#{pane_dead}") == "1"

    def wait_for(self, predicate: Callable[[str], bool], timeout: float = 30.0, escapes: bool = False,
                 what: str = "") -> str:
        """Poll the screen until `predicate(screen)` holds; the screen then. Fails with the last screen."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture(escapes)
            if predicate(screen):
                return screen
            if self.dead:
                break
            time.sleep(0.1)
        raise AssertionError(f"not seen on the screen{': ' + what if what else ''}\n{screen}")

    def wait_text(self, needle: str, timeout: float = 30.0) -> str:
        """Wait until `needle` is on the screen."""
        return self.wait_for(lambda screen: needle in screen, timeout, what=repr(needle))

    def wait_exit(self, timeout: float = 15.0) -> int:
        """Wait until the program has exited; its exit status (the pane's shell prints it)."""
        screen = self.wait_for(lambda s: EXIT.search(s) is not None, timeout, what="the program's exit")
        match = EXIT.search(screen)
        assert match is not None
        return int(match.group(1))


@contextmanager
def tmux_pane(tmp: Path, command: Sequence[str], width: int = 80, height: int = 24,
              env: Mapping[str, str] | None = None) -> Iterator[TmuxPane]:
    """Run `command` in a fresh tmux pane of width × height cells; tear all of it down after.

    `env` is the whole environment the command sees (tmux's own TERM is replaced by env's TERM,
    so a test chooses the terminal type the program is told about).
    """
    tmp.mkdir(parents=True, exist_ok=True)
    socket = tmp / "tmux.sock"
    config = tmp / "tmux.conf"
    # remain-on-exit: a finished program's pane stays, so a test can read its exit status
    config.write_text("set -g remain-on-exit on\nset -g status off\nset -g history-limit 0\n"
                      'set -g default-terminal "tmux-256color"\n', encoding="utf-8")
    environment = dict(env if env is not None else os.environ)
    line = "env -i " + " ".join(shlex.quote(f"{k}={v}") for k, v in environment.items())
    # the shell reports the exit status on the pane (tmux's own pane_dead_status can lag forever)
    line += " " + shlex.join(command) + '; echo "[tmux_pane: exit $?]"'
    subprocess.run(["tmux", "-S", str(socket), "-f", str(config), "new-session", "-d", "-x", str(width),
                    "-y", str(height), line], check=True, timeout=30, env={"PATH": os.environ["PATH"]})
    pane = TmuxPane(socket)
    server_pid = int(pane.value("#{pid}"))
    try:
        yield pane
    finally:
        with suppress(subprocess.SubprocessError, ValueError):
            # a pane is a session of its own: its process group is the shell and what it started
            group = int(pane.value("#{pane_pid}"))
            if not pane.dead:
                _kill(group, os.killpg)
        _kill(server_pid, os.kill)
        with suppress(FileNotFoundError):
            socket.unlink()


def _kill(pid: int, kill: Callable[[int, int], None]) -> None:
    """SIGTERM, then SIGKILL after 5 s, for one process (or group) id, never by name."""
    with suppress(ProcessLookupError):
        kill(pid, signal.SIGTERM)
        for _ in range(50):
            kill(pid, 0)
            time.sleep(0.1)
        kill(pid, signal.SIGKILL)


def sgr_codes(screen: str) -> set[int]:
    """Every SGR code used on a captured screen, colour arguments left out (`38;5;9` gives {38})."""
    codes: set[int] = set()
    for match in SGR.finditer(screen):
        params = [int(p) if p else 0 for p in re.split("[;:]", match.group(1))]
        i = 0
        while i < len(params):
            code = params[i]
            codes.add(code)
            if code in (38, 48, 58) and i + 1 < len(params):
                i += 3 if params[i + 1] == 5 else 5  # 38;5;n or 38;2;r;g;b
            else:
                i += 1
    return codes
