"""Small and plain terminals in tmux: 80×24 is first class, 40×12 says it is too small, resizing never crashes.

Each size runs with 16 colours (TERM=xterm) and with NO_COLOR=1; every status stays
distinguishable: four colours where there are colours, and the strike, ▸ and ⁺ cues always.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

from tests.support.screen_cues import status_colours, stream_bounds, stream_rows
from tests.support.tmux_pane import SGR, TmuxPane, sgr_codes, tmux_pane

SPECVIEW = Path(sys.executable).parent / "specview"
LEGEND = "accepted  rejected  ▸corrected  bonus⁺  discardedˣ"  # the legend under the stream (rejected struck)
TERMINALS = {"xterm-16-colours": {"TERM": "xterm"}, "no-color": {"TERM": "xterm-256color", "NO_COLOR": "1"}}
STRIP = re.compile(r"α \d\.\d\d .*τ \d+\.\d\d .*tok/s [\d.]+")


def env(tmp: Path, terminal: str) -> dict[str, str]:
    return {"PATH": os.environ["PATH"], "HOME": str(tmp), "SPECVIEW_CONFIG": str(tmp / "no-config.toml"),
            "TEXTUAL_ANIMATIONS": "none", **TERMINALS[terminal]}


def streaming(screen: str) -> bool:
    """Marked tokens in the stream."""
    stream = "\n".join(stream_rows(screen))
    return bool(re.search(r"▸\S", stream) and re.search(r"\S⁺", stream))


def marked(screen: str) -> bool:
    """Marked tokens and the gauge strip (the layout below 100 columns)."""
    return streaming(screen) and bool(STRIP.search(SGR.sub("", screen)))


def check_80x24(screen: str, terminal: str) -> None:
    """The whole layout at 80×24: nothing cut, nothing overlapping, every status told apart."""
    rows = SGR.sub("", screen).splitlines()
    assert len(rows) >= 24 and all(len(row) <= 80 for row in rows)
    assert rows[0].startswith(" specview ") and rows[0].rstrip().lower().endswith("f1 help"), "state in view"
    top, bottom = stream_bounds(rows)
    assert top == 1 and bottom > top + 10, "the stream takes the height"
    assert LEGEND in rows[bottom + 1], "the legend is whole"
    for row in rows[top + 1:bottom]:  # the stream's own borders on every row: nothing drawn over it
        assert row.startswith("│") and row.rstrip().endswith("│") and len(row.rstrip()) == 80, row
    assert "this run" not in screen, "no side panel at 80 columns"
    assert any(STRIP.search(row) for row in rows[bottom + 2 : 23]), f"the gauge strip: {rows[bottom + 2 : 23]!r}"
    assert "space" in rows[-1] or "space" in rows[23], "the footer"
    assert 9 in sgr_codes(screen), "rejected drafts are struck through"
    if terminal == "xterm-16-colours":
        assert not sgr_codes(screen) & {38, 48}, "16 colours only"
        colours = status_colours(screen)
        assert len(set(colours.values())) == 4, f"four statuses, four colours: {colours}"


def settled_80x24(pane: TmuxPane, terminal: str, what: str) -> str:
    """The screen once it passes check_80x24 (a resize takes a frame or two to settle everywhere)."""
    def passes(screen: str) -> bool:
        try:
            check_80x24(screen, terminal)
        except AssertionError:
            return False
        return marked(screen)

    try:
        return pane.wait_for(passes, timeout=30, escapes=True, what=what)
    except AssertionError:
        check_80x24(pane.capture(escapes=True), terminal)  # says what is wrong
        raise


def too_small(pane: TmuxPane) -> str:
    return pane.wait_for(lambda s: "too small" in s, timeout=30, what="the too-small message")


@pytest.mark.parametrize("terminal", list(TERMINALS))
def test_80x24_is_first_class(tmp_path: Path, terminal: str) -> None:
    with tmux_pane(tmp_path / "tmux", [str(SPECVIEW), "--preset", "glm-5.2-mtp"], 80, 24,
                   env(tmp_path, terminal)) as pane:
        pane.wait_for(marked, timeout=60, escapes=True, what="tokens and the gauge strip")
        screen = settled_80x24(pane, terminal, "the 80x24 layout")
        print(f"[{terminal}] 80x24: legend whole, strip {STRIP.search(SGR.sub('', screen)).group(0)!r}")  # type: ignore[union-attr]
        pane.keys("q")
        assert pane.wait_exit() == 0


def rounds_recorded(path: Path) -> int:
    """Whole rounds in a recording still being written (its last line may be cut)."""
    data = path.read_bytes() if path.exists() else b""
    return sum(line.startswith(b'{"type": "round"') for line in data.split(b"\n")[:-1])


@pytest.mark.parametrize("terminal", list(TERMINALS))
def test_40x12_says_too_small_and_keeps_running(tmp_path: Path, terminal: str) -> None:
    record = tmp_path / "run.jsonl"
    with tmux_pane(tmp_path / "tmux", [str(SPECVIEW), "--preset", "glm-5.2-mtp", "--record", str(record)], 40, 12,
                   env(tmp_path, terminal)) as pane:
        screen = too_small(pane)
        assert "60 × 16" in screen and "╭" not in screen, "only the message, nothing half drawn"
        # the run goes on behind the message: rounds (8 of GLM's ≈ 5.5 tokens) recorded while it shows
        pane.wait_for(lambda s: "too small" in s and rounds_recorded(record) >= 8, timeout=60,
                      what="rounds recorded behind the too-small message")
        pane.resize(80, 24)
        screen = settled_80x24(pane, terminal, "the live view back at 80x24")
        assert len("".join(stream_rows(screen)).split()) > 20, "what streamed meanwhile is there"
        pane.keys("q")
        assert pane.wait_exit() == 0


def test_live_resizes_never_crash(tmp_path: Path) -> None:
    sizes = [(130, 36), (80, 24), (40, 12), (20, 5), (200, 50), (61, 16), (59, 15), (2, 2), (100, 30), (99, 30),
             (80, 24)]
    with tmux_pane(tmp_path / "tmux", [str(SPECVIEW), "--preset", "qwen3.6-mtp", "--speed", "4"], 130, 36,
                   env(tmp_path, "xterm-16-colours")) as pane:
        pane.wait_for(streaming, timeout=60, escapes=True, what="the first frame")
        for _ in range(2):
            for width, height in sizes:
                pane.resize(width, height)
                time.sleep(0.15)
        settled_80x24(pane, "xterm-16-colours", "the live view after the resizes")
        pane.keys("q")
        assert pane.wait_exit() == 0, "exit code 0 (no crash)"
