"""The terminal as users expect, in a real terminal (tmux): Ctrl-C quits as `q` does, and a second
Ctrl-C while the runs stop ends the process at once.

specview runs from this worktree (`python -m specview`, PYTHONPATH), with no config of its own.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from tests.support.limited_run import ROOT
from tests.support.tmux_pane import TmuxPane, tmux_pane

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="tmux and /proc")

ALTERNATE_SCREEN = "#{alternate_on}"
# four flat-out simulator runs: each runs in a producer process of its own (backends/process.py)
FOUR_FLAT_OUT = ["compare", "qwen3.6-mtp", "glm-5.2-mtp", "eagle3", "ngram", "--speed", "0"]


def env(tmp: Path) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(tmp), "SPECVIEW_CONFIG": str(tmp / "no-config.toml"),
            "TERM": "xterm-256color", "PYTHONPATH": str(ROOT), "TEXTUAL_ANIMATIONS": "none"}


@contextmanager
def specview(tmp: Path, *args: str, width: int = 100, height: int = 30) -> Iterator[TmuxPane]:
    with tmux_pane(tmp, [sys.executable, "-m", "specview", *args], width, height, env(tmp)) as pane:
        yield pane


def children(pid: int) -> list[int]:
    """The process ids `pid` started (all its threads'), from /proc."""
    found: list[int] = []
    with suppress(FileNotFoundError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with suppress(FileNotFoundError):
                found += [int(child) for child in (task / "children").read_text().split()]
    return found


def quit_code(tmp: Path, key: str) -> tuple[int, str]:
    """The exit code of the live view on the simulator quit by `key`, and the screen after."""
    with specview(tmp, "--seed", "7") as pane:
        pane.wait_text("f1 help", 60)
        pane.wait_for(lambda screen: "▸" in screen, 60, what="the stream runs")
        pane.keys(key)
        code = pane.wait_exit(30)
        return code, pane.value(ALTERNATE_SCREEN)


def test_ctrl_c_quits_the_live_view_as_q_does(tmp_path: Path) -> None:
    by_q = quit_code(tmp_path / "q", "q")
    by_ctrl_c = quit_code(tmp_path / "ctrl-c", "C-c")
    assert by_ctrl_c == by_q == (0, "0"), "one Ctrl-C quits, with q's exit code, the terminal restored"


def test_a_second_ctrl_c_while_stopping_forces_the_quit(tmp_path: Path) -> None:
    """Producers that do not answer make the stop wait (about 1 s each, then they are killed);
    a second Ctrl-C during that wait ends the process at once with the shell's code for it."""
    with specview(tmp_path, *FOUR_FLAT_OUT, width=120, height=36) as pane:
        pane.wait_text("f1 help", 60)
        app = children(int(pane.value("#{pane_pid}")))[0]
        deadline = time.monotonic() + 60
        while len(producers := children(app)) < 4 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(producers) == 4, producers
        try:
            for pid in producers:
                os.kill(pid, signal.SIGSTOP)
            pane.keys("C-c")
            pane.wait_for(lambda _: pane.value(ALTERNATE_SCREEN) == "0", 30, what="the terminal is given back")
            started = time.monotonic()
            pane.keys("C-c")
            assert pane.wait_exit(30) == 128 + signal.SIGINT, "forced: the shell's code for an interrupt"
            assert time.monotonic() - started < 3.0, "not after the runs stopped (about 4 s)"
        finally:
            for pid in producers:
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def test_compare_at_80x24_keeps_each_summary_row_on_one_line(tmp_path: Path) -> None:
    runs = ("qwen3.6-mtp", "glm-5.2-mtp", "eagle3")
    with specview(tmp_path, "compare", *runs, width=80, height=24) as pane:
        # the screen that showed every row, not a second capture a frame later
        screen = pane.wait_for(lambda screen: [row.count("×") for row in summary_rows(screen, len(runs))]
                               == [1] * len(runs), 60, what="every run's numbers, speedup included")
        rows = summary_rows(screen, len(runs))
        assert [row.split()[0] for row in rows] == [f"sim:{run}" for run in runs], screen
        assert all(len(row) <= 80 for row in rows)
        header = screen.splitlines()[screen.splitlines().index(rows[0]) - 1]
        assert header.split()[:4] == ["run", "α", "τ", "tok/s"] and "speedup" in header, header
        below = screen.splitlines()[screen.splitlines().index(rows[-1]) + 1]
        assert "space pause all" in below, "no wrapped half-row between the table and the footer"


def summary_rows(screen: str, count: int) -> list[str]:
    """The summary table's run rows (each begins with the run's label)."""
    return [row for row in screen.splitlines() if row.startswith(" sim:")][:count]
