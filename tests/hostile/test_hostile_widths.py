"""Characters Rich and the terminal measure differently, in token text, a model id and the compare
summary, drawn by a real terminal (tmux): every border stays in its column, every summary value
stands under its header, nothing is lost.

Before the boundary made them visible, a model id with six U+3164 (Rich: 0 cells, tmux: 12)
pushed the compare summary's values 12 cells right, a zero-width joiner made Rich skip the
letter after it, and a skin-tone modifier or a VS16 shifted the pane borders; the text that
followed overwrote the pane beside it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.hostile_checks import assert_terminal_clean
from tests.support.hostile_server import HostileServer, Scenario, chat_chunk, hostile_server
from tests.support.limited_run import base_env
from tests.support.terminal_width import cells, drawn_width
from tests.support.tmux_pane import tmux_pane

# Rich 0 / tmux 12; Rich skips the letter after each joiner; Rich 0 / tmux 6; VS16: Rich 2 / tmux 1;
# a skin tone: Rich 2 / tmux 4 for the pair; a family joined: one glyph on some terminals
WIDE = "\u3164" * 6 + "a\u200db\u200dc" + "\uffa0" * 6 + "❤\ufe0f" + "👍🏽" + "👨\u200d👩\u200d👧" + "\u1160" * 3
MODEL = "模型" + WIDE  # and two characters of two cells each, which the summary cut and padded as one
WIDTH, HEIGHT = 120, 36
CORNERS = "╭╮╰╯│"


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def tokens() -> list[str]:
    return ["one ", WIDE, " two ", WIDE * 3, " three", "\u3164" * 40, " end"]


def border_columns(screen: list[list[str]], row: int) -> list[int]:
    """The columns of the box-drawing corners and sides on one row."""
    return [x for x, ch in enumerate(screen[row]) if ch and ch in CORNERS]


def assert_boxes_in_place(lines: list[str], top: int, bottom: int) -> None:
    """Every row from `top` to `bottom` has its box sides in the columns of the bottom border row
    (drawn from box characters only, so it is where the layout put them), and no row is wider
    than the terminal."""
    screen = [cells(line) for line in lines]
    expected = border_columns(screen, bottom)
    assert len(expected) >= 2, lines[bottom]
    for row in range(top, bottom + 1):
        assert len(screen[row]) <= WIDTH, lines[row]
        assert all(x < len(screen[row]) and screen[row][x] in CORNERS for x in expected), \
            f"row {row} moved: {lines[row]!r}"


def test_compare_summary_and_panes_keep_their_columns(server: HostileServer, tmp_path: Path) -> None:
    server.scenario = Scenario(models=[{"id": MODEL}], events=[chat_chunk(t) for t in tokens()])
    command = [sys.executable, "-m", "specview", "compare", f"url:{server.url}#{MODEL}", "glm-5.2-mtp", "--speed", "0"]
    with tmux_pane(tmp_path / "tmux", command, WIDTH, HEIGHT, base_env(tmp_path, {"LANG": "C.UTF-8"})) as pane:
        screen = pane.wait_for(lambda s: "■ finished" in s and s.count("tok/s") >= 3, 90,
                               what="both runs and the summary")
        pane.keys("q")
        assert pane.wait_exit() == 0
    lines = screen.split("\n")
    assert_terminal_clean(screen.encode())
    top = next(i for i, line in enumerate(lines) if line.startswith("╭"))
    bottom = next(i for i, line in enumerate(lines) if line.startswith("╰"))
    assert_boxes_in_place(lines, top, bottom)
    # the summary: each value ends in the header's last cell, in every row
    header = next(i for i, line in enumerate(lines) if i > bottom and " tok/s" in line and " α " in line)
    rows = [i for i, line in enumerate(lines) if i > header and line.startswith((" openai:", " sim:"))]
    assert len(rows) == 2, lines[header:]
    head = cells(lines[header])
    for name in ("α", "τ", "tok/s"):
        end = drawn_width(lines[header][: lines[header].index(f" {name} ") + 1 + len(name)]) - 1
        assert head[end] == name[-1]
        for row in rows:
            line = cells(lines[row])
            assert line[end] not in ("", " ") and line[end + 1] == " ", (name, lines[row])
    assert all(drawn_width(lines[row].rstrip()) <= WIDTH for row in rows)
    assert "�" in lines[rows[0]]  # the model id's invisible characters are shown, not dropped


def test_the_live_view_keeps_its_side_panel_in_place(server: HostileServer, tmp_path: Path) -> None:
    server.scenario = Scenario(models=[{"id": MODEL}], events=[chat_chunk(t) for t in tokens()])
    command = [sys.executable, "-m", "specview", "--url", server.url]
    with tmux_pane(tmp_path / "tmux", command, WIDTH, HEIGHT, base_env(tmp_path, {"LANG": "C.UTF-8"})) as pane:
        screen = pane.wait_text("■ finished", 90)
        pane.keys("q")
        assert pane.wait_exit() == 0
    lines = screen.split("\n")
    top = next(i for i, line in enumerate(lines) if line.startswith("╭"))
    bottom = next(i for i, line in enumerate(lines) if line.startswith("╰"))
    assert_boxes_in_place(lines, top, bottom)
    status = cells(lines[0])
    assert len(status) <= WIDTH and "".join(status).rstrip().endswith("f1 help")  # the model id took its room
    stream = "".join("".join(cells(line)[1:]) for line in lines[top + 1:bottom])
    assert stream.count(" end") == 1 and "three" in stream  # nothing of the text lost
