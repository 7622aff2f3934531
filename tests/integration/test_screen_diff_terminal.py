"""The screen diff in a real terminal emulator (tmux): the same run looks the same, cell for cell and colour
for colour, whether specview sends only the changes or everything Textual writes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.tmux_pane import tmux_pane

SPECVIEW = Path(sys.executable).parent / "specview"


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("diff") / "run.jsonl"
    subprocess.run([str(SPECVIEW), "bench", "--preset", "glm-5.2-mtp", "--rounds", "120", "--seed", "3",
                    "--record", str(path), "--json"], check=True, capture_output=True, timeout=120)
    return path


def final_screen(tmp: Path, recording: Path, size: tuple[int, int], diff: str, term: str) -> str:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp), "TERM": term, "SPECVIEW_CONFIG": str(tmp / "none.toml"),
           "TEXTUAL_ANIMATIONS": "none", "SPECVIEW_SCREEN_DIFF": diff}
    # a replay at 4× its recorded pace: many frames, each drawn over the last, then a still, finished screen
    command = [str(SPECVIEW), "replay", str(recording), "--speed", "4"]
    with tmux_pane(tmp / f"tmux-{diff}", command, *size, env=env) as pane:
        pane.wait_text("finished", timeout=90)
        screen = pane.wait_for(lambda s: s == pane.capture(escapes=True), timeout=10, escapes=True, what="a still")
        pane.keys("q")
        assert pane.wait_exit() == 0
    return screen


@pytest.mark.parametrize(("size", "term"), [((80, 24), "xterm-256color"), ((130, 36), "xterm")])
def test_the_screen_is_the_same_with_and_without_the_diff(tmp_path: Path, recording: Path,
                                                          size: tuple[int, int], term: str) -> None:
    full = final_screen(tmp_path, recording, size, "0", term)
    diffed = final_screen(tmp_path, recording, size, "1", term)
    assert "finished" in diffed and "▸" in diffed
    assert diffed == full
