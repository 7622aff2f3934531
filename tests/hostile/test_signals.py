"""Signals in a real terminal (tmux): SIGTERM and SIGHUP stop the app the way `q` does, and Ctrl-Z
suspends and resumes it; afterwards the terminal's modes are what they were before. A terminal
that goes away without a SIGHUP (the multiplexer killed) ends the app too, and so does SIGTERM
once the terminal is gone.

specview runs under a shell that prints its exit code and stays, so tmux's pane modes can be
read after the exit while the pane is alive: the alternate screen off, the cursor visible, no
mouse tracking. The tmux server has its own socket and no config file, and is ended by its
process id.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from tests.support.limited_run import ROOT, base_env

MODES = "#{alternate_on} #{cursor_flag} #{mouse_any_flag}#{mouse_button_flag}#{mouse_standard_flag}#{mouse_sgr_flag}"
RESTORED = "0 1 0000"  # normal screen, cursor shown, no mouse reporting of any kind


def in_app(modes: str) -> bool:
    """The app's modes: the alternate screen, the cursor hidden, some mouse reporting on."""
    screen, cursor, mouse = modes.split()
    return (screen, cursor) == ("1", "0") and mouse != "0000"


class Pane:
    """The one pane of a private tmux server."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-S", str(self.socket), *args], capture_output=True, text=True,
                              timeout=30, check=True).stdout

    def value(self, fmt: str) -> str:
        return self.tmux("display-message", "-p", "-t", "0", fmt).strip()

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "0")

    def wait(self, what: str, check: object, timeout: float = 60.0) -> None:
        assert callable(check)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return
            time.sleep(0.1)
        raise AssertionError(f"not reached: {what}\n{self.screen()}")

    def wait_text(self, text: str, timeout: float = 60.0) -> None:
        self.wait(repr(text), lambda: text in self.screen(), timeout)


@contextmanager
def tmux_pane(tmp_path: Path, command: str, env: dict[str, str]) -> Iterator[Pane]:
    socket = tmp_path / "tmux.sock"
    subprocess.run(["tmux", "-S", str(socket), "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "36",
                    command], check=True, env=env, timeout=30)
    pane = Pane(socket)
    pane.tmux("set-option", "-g", "remain-on-exit", "on")
    server_pid = int(pane.value("#{pid}"))
    try:
        yield pane
    finally:
        with suppress(ProcessLookupError):  # a test may have killed it already
            os.kill(server_pid, signal.SIGKILL)  # the server, and with it the pane's program


def specview_command(env: dict[str, str], *args: str) -> str:
    assigned = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k.startswith(("XDG_", "SPECVIEW_")))
    return f"env {assigned} TERM=tmux-256color {shlex.quote(sys.executable)} -m specview " + shlex.join(args)


def children(pid: int) -> list[int]:
    """Process ids whose parent is `pid` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_stop_signal_quits_like_q(tmp_path: Path, sig: signal.Signals, code: int) -> None:
    env = base_env(tmp_path)
    record = tmp_path / "run.jsonl"
    run = specview_command(env, "--speed", "0", "--record", str(record))
    command = f"cd {shlex.quote(str(ROOT))} && sh -c {shlex.quote(run + '; echo exit=$?; exec sleep 600')}"
    with tmux_pane(tmp_path, command, env) as pane:
        pane.wait_text("▶ running")
        pane.wait("the app in the alternate screen with the mouse on", lambda: in_app(pane.value(MODES)))
        pane.wait("rounds recorded", lambda: len(record.read_bytes().splitlines()) > 2)
        shell = int(pane.value("#{pane_pid}"))
        (app,) = [pid for pid in children(shell) if "specview" in Path(f"/proc/{pid}/cmdline").read_text()]
        os.kill(app, sig)
        pane.wait_text(f"exit={code}", timeout=20)
        assert pane.value(MODES) == RESTORED
    lines = record.read_text(encoding="utf-8").splitlines()
    assert len(lines) > 1 and all(json.loads(line) for line in lines)  # flushed: every line whole


def test_ctrl_z_suspends_and_fg_resumes(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    shell = f"cd {shlex.quote(str(ROOT))} && PS1='sh$ ' exec bash --norc --noprofile -i"
    with tmux_pane(tmp_path, shell, env) as pane:
        pane.wait_text("sh$")
        pane.tmux("send-keys", "-t", "0", specview_command(env, "--speed", "0"), "Enter")
        pane.wait_text("▶ running")
        pane.tmux("send-keys", "-t", "0", "C-z")
        pane.wait_text("Stopped")
        assert pane.value(MODES) == RESTORED  # the shell gets a normal terminal back
        pane.tmux("send-keys", "-t", "0", "fg", "Enter")
        pane.wait("the app back in the alternate screen", lambda: in_app(pane.value(MODES)))
        pane.wait_text("▶ running")
        pane.tmux("send-keys", "-t", "0", "q")
        pane.wait("the shell prompt again",
                  lambda: pane.value(MODES) == RESTORED and pane.screen().rstrip().endswith("sh$"))
        pane.tmux("send-keys", "-t", "0", "echo rc=$?", "Enter")
        pane.wait_text("rc=0")


def alive(pid: int) -> bool:
    """Whether `pid` still runs (an exited orphan may linger as a zombie until init reaps it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def wait_gone(pid: int, timeout: float) -> float:
    """Seconds until `pid` has ended; fails after `timeout`."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if not alive(pid):
            return time.monotonic() - started
        time.sleep(0.05)
    raise AssertionError(f"specview ({pid}) still runs {timeout:.0f} s after its terminal went away")


@pytest.mark.parametrize("case", ["the shell dies of SIGHUP", "the shell ignores SIGHUP", "and SIGTERM"])
def test_the_app_ends_when_its_terminal_goes_away(tmp_path: Path, case: str) -> None:
    """`sh -c` in tmux, then the tmux server killed: only the shell (the session leader) is sent
    SIGHUP; specview, orphaned (or left to a shell that ignores SIGHUP) with a hung-up terminal,
    quits as on a hangup (129), its recording whole. With SIGTERM sent at once, it ends too."""
    env = base_env(tmp_path)
    record, status = tmp_path / "run.jsonl", tmp_path / "status"
    run = specview_command(env, "--speed", "0", "--record", str(record))
    trap = "trap '' HUP; " if case == "the shell ignores SIGHUP" else ""
    script = f"{trap}{run}; echo $? > {shlex.quote(str(status))}"
    with tmux_pane(tmp_path, f"cd {shlex.quote(str(ROOT))} && sh -c {shlex.quote(script)}", env) as pane:
        pane.wait_text("▶ running")
        pane.wait("rounds recorded", lambda: len(record.read_bytes().splitlines()) > 2)
        shell = int(pane.value("#{pane_pid}"))
        (app,) = [pid for pid in children(shell) if "specview" in Path(f"/proc/{pid}/cmdline").read_text()]
        os.kill(int(pane.value("#{pid}")), signal.SIGKILL)  # the terminal's other end closes at once
        try:
            if case == "and SIGTERM":
                os.kill(app, signal.SIGTERM)
            wait_gone(app, timeout=20)
        finally:
            if alive(app):  # failed: no orphan is left behind
                os.kill(app, signal.SIGKILL)
    if case == "the shell ignores SIGHUP":  # the shell outlived its terminal: it says how specview ended
        deadline = time.monotonic() + 10
        while not status.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert status.read_text().strip() == "129"
    data = record.read_bytes()
    assert data.endswith(b"\n")  # flushed: no line cut off
    lines = data.decode("utf-8").splitlines()
    assert len(lines) > 2 and all(json.loads(line) for line in lines)
