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
from dataclasses import dataclass
from pathlib import Path

SGR = re.compile(r"\x1b\[([0-9;:]*)m")


class TmuxPane:
    """One pane of a private tmux server."""

    def __init__(self, socket: Path, exit_file: Path) -> None:
        self.socket = socket
        self.exit_file = exit_file

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
        """Wait until the program has exited; its exit status (the pane's shell writes it to a file)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with suppress(OSError, ValueError):
                return int(self.exit_file.read_text(encoding="utf-8"))
            time.sleep(0.1)
        raise AssertionError(f"the program did not exit\n{self.capture()}")


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
    # the shell writes the exit status down (tmux's own pane_dead_status can stay empty)
    exit_file = tmp / "exit-status"
    line += " " + shlex.join(command) + f"; echo $? > {shlex.quote(str(exit_file))}.tmp"
    line += f" && mv {shlex.quote(str(exit_file))}.tmp {shlex.quote(str(exit_file))}"
    subprocess.run(["tmux", "-S", str(socket), "-f", str(config), "new-session", "-d", "-x", str(width),
                    "-y", str(height), line], check=True, timeout=30, env={"PATH": os.environ["PATH"]})
    pane = TmuxPane(socket, exit_file)
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


@dataclass(frozen=True, slots=True)
class Run:
    """Text drawn in one style: its foreground colour (SGR form, '' for default) and attributes."""

    text: str
    fg: str
    attrs: frozenset[int]


_ATTR_OFF = {22: (1, 2), 23: (3,), 24: (4,), 25: (5,), 27: (7,), 28: (8,), 29: (9,)}


def styled_runs(line: str) -> list[Run]:
    """A captured line (with escapes) as runs of text in one style."""
    runs: list[Run] = []
    fg, attrs = "", set[int]()
    pos = 0
    for match in [*SGR.finditer(line), None]:
        end = match.start() if match else len(line)
        if end > pos:
            runs.append(Run(line[pos:end], fg, frozenset(attrs)))
        if match is None:
            break
        pos = match.end()
        params = [int(p) if p else 0 for p in re.split("[;:]", match.group(1))] or [0]
        i = 0
        while i < len(params):
            code = params[i]
            if code == 0:
                fg, attrs = "", set()
            elif code in (38, 48, 58):
                size = 3 if i + 1 < len(params) and params[i + 1] == 5 else 5
                if code == 38:
                    fg = ";".join(map(str, params[i:i + size]))
                i += size
                continue
            elif 30 <= code <= 37 or 90 <= code <= 97:
                fg = str(code)
            elif code == 39:
                fg = ""
            elif code in _ATTR_OFF:
                attrs -= set(_ATTR_OFF[code])
            elif 1 <= code <= 9:
                attrs.add(code)
            i += 1
    return runs
