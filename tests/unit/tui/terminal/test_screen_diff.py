"""The screen diff changes the bytes, never what a terminal shows: checked with pyte (a terminal emulator)."""

from __future__ import annotations

import pyte
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.color import ColorSystem
from rich.style import Style
from textual.strip import Strip

from specview.tui.terminal.screen_diff import ScreenDiff

COLS, ROWS = 60, 8


class DimScreen(pyte.Screen):
    """pyte's screen, also remembering dim (SGR 2, cleared by 22 and 0), which pyte does not track."""

    def __init__(self) -> None:
        super().__init__(COLS, ROWS)
        self.dim = False
        self.dim_cells: dict[tuple[int, int], bool] = {}

    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        values, i = list(attrs) or [0], 0
        while i < len(values):
            code = values[i]
            if code in (38, 48) and i + 1 < len(values):
                i += 3 if values[i + 1] == 5 else 5
                continue
            if code in (0, 22):
                self.dim = False
            elif code == 2:
                self.dim = True
            i += 1
        super().select_graphic_rendition(*attrs)

    def draw(self, data: str) -> None:
        for ch in data:
            if cell_len(ch):
                self.dim_cells[(self.cursor.y, self.cursor.x)] = self.dim
            super().draw(ch)

    def erase_in_display(self, how: int = 0, *args: object, **kwargs: object) -> None:
        if how == 2:
            self.dim_cells.clear()
        super().erase_in_display(how, *args, **kwargs)  # type: ignore[arg-type]


def shown(writes: list[str]) -> tuple[object, ...]:
    screen = DimScreen()
    stream = pyte.Stream(screen)
    for data in writes:
        stream.feed(data)
    cells = tuple(tuple(screen.buffer[y][x] for x in range(COLS)) for y in range(ROWS))
    return cells, tuple(sorted(screen.dim_cells.items()))


def frame(drawn: list[tuple[int, int, list[tuple[str, Style]]]], system: ColorSystem) -> str:
    """What Textual writes: per line a cursor move, each segment as ESC[..m text ESC[0m, a line feed between."""
    lines = []
    for y, x, segs in drawn:
        body = "".join(Strip.render_style(style, text, system) for text, style in segs)
        lines.append(f"\x1b[{y + 1};{x + 1}H{body}")
    return "\n".join(lines)


colours = st.one_of(st.none(), st.sampled_from(["red", "bright_blue", "default", "color(123)", "color(7)"]),
                    st.sampled_from(["#1c1f26", "#3fb950", "#f85149"]))
styles = st.builds(lambda fg, bg, bold, dim, strike, reverse: Style(
    color=fg, bgcolor=bg, bold=bold, dim=dim, strike=strike, reverse=reverse),
    colours, colours, *[st.one_of(st.none(), st.booleans())] * 4)
texts = st.lists(st.sampled_from(["a", "b", " ", ".", "▸", "⁺", "漢", "字", "é", "e\u0301", "x"]), min_size=1,
                 max_size=6).map("".join)
segments = st.lists(st.tuples(texts, styles), min_size=1, max_size=6)
lines = st.lists(st.tuples(st.integers(0, ROWS - 1), st.integers(0, 12), segments), min_size=1, max_size=5)
extras = st.sampled_from(["", "", "", "\x1b[2J", "\x1b[?25l", "\x1b[?2026h", "\x1b[58;5;3m", "\x07"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(lines, extras), min_size=1, max_size=5),
       st.sampled_from([ColorSystem.TRUECOLOR, ColorSystem.EIGHT_BIT, ColorSystem.STANDARD]))
def test_diffed_frames_show_the_same_screen(frames: list[tuple[list, str]], system: ColorSystem) -> None:
    raw = []
    for drawn, extra in frames:
        raw.append(extra + frame(drawn, system))
        raw.append(frame(drawn[: len(drawn) // 2 + 1], system))  # part of it again: a repaint
    diff = ScreenDiff(rows=ROWS)
    diffed = [diff.compact(data) for data in raw]
    assert shown(diffed) == shown(raw)
    assert sum(map(len, diffed)) <= sum(map(len, raw)) + 8 * len(raw)


def tail(words: list[tuple[str, str]]) -> str:
    """One stream line in the live view's colours."""
    colour = {"a": "#3fb950", "r": "#f85149", "c": "#f5a524", "b": "#58a6ff"}
    segs = [(text, Style(color=colour[kind], bgcolor="#1c1f26", strike=kind == "r", bold=kind in "cb"))
            for kind, text in words]
    return frame([(3, 2, segs)], ColorSystem.TRUECOLOR)


def test_a_growing_line_costs_only_its_new_tokens() -> None:
    before = [("a", "The keeper"), ("b", " climbed⁺"), ("r", " wind"), ("c", " ▸stairs")]
    after = [*before, ("a", " every evening"), ("b", " at⁺")]
    diff = ScreenDiff()
    first = diff.compact(tail(before))
    second = diff.compact(tail(after))
    assert shown([first, second]) == shown([tail(before), tail(after)])
    # the cursor is already where the line grows: no move, no old text
    assert "H" not in second and "keeper" not in second and "every evening" in second
    assert len(second) < len(tail(after)) / 3


def test_a_changed_number_sends_only_its_digits() -> None:
    diff = ScreenDiff()
    style = Style(color="#e6e6e6", bgcolor="#1c1f26", bold=True)
    diff.compact(frame([(2, 40, [("tokens / s    ", style), ("  117.7", style)])], ColorSystem.TRUECOLOR))
    out = diff.compact(frame([(2, 40, [("tokens / s    ", style), ("  118.2", style)])], ColorSystem.TRUECOLOR))
    # "117.7" → "118.2": the "." between the two changed digits is sent again, cheaper than a move
    assert out == "\x1b[3;59H\x1b[1;38;2;230;230;230;48;2;28;31;38m8.2\x1b[0m"


def test_reset_sends_everything_again_and_unknown_sequences_pass_through() -> None:
    diff = ScreenDiff()
    line = tail([("a", "hello"), ("r", " there")])
    diff.compact(line)
    assert diff.compact(line) == ""
    diff.reset()  # e.g. the terminal was resized
    assert "hello" in diff.compact(line)
    odd = "\x1b[4;3H\x1b[58;5;3mX\x1b[0m"
    assert "\x1b[58;5;3m" in diff.compact(odd)
    assert "hello" in diff.compact("\x1b[2J" + line), "an erase forgets the screen"
