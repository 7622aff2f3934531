"""SGR compaction changes bytes, never what a terminal shows: checked with pyte (a terminal emulator)."""

from __future__ import annotations

import pyte
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.color import ColorSystem
from rich.style import Style
from textual.strip import Strip

from specview.tui.sgr_compact import SgrCompactor

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
            self.dim_cells[(self.cursor.y, self.cursor.x)] = self.dim
            super().draw(ch)


def shown(writes: list[str]) -> tuple[object, ...]:
    screen = DimScreen()
    stream = pyte.Stream(screen)
    for data in writes:
        stream.feed(data)
    cells = tuple(tuple(screen.buffer[y][x] for x in range(COLS)) for y in range(ROWS))
    return cells, tuple(sorted(screen.dim_cells.items()))


colours = st.one_of(st.none(), st.sampled_from(["red", "bright_blue", "default", "color(123)", "color(7)"]),
                    st.tuples(*[st.integers(0, 255)] * 3).map(lambda c: "#{:02x}{:02x}{:02x}".format(*c)))
styles = st.builds(lambda fg, bg, bold, dim, italic, underline, strike, reverse: Style(
    color=fg, bgcolor=bg, bold=bold, dim=dim, italic=italic, underline=underline, strike=strike, reverse=reverse),
    colours, colours, *[st.one_of(st.none(), st.booleans())] * 6)
segments = st.lists(st.tuples(st.text("abc xyz.▸⁺", min_size=1, max_size=6), styles), min_size=1, max_size=8)
lines = st.lists(st.tuples(st.integers(0, ROWS - 1), st.integers(0, 10), segments), min_size=1, max_size=6)


def frame(drawn: list[tuple[int, int, list[tuple[str, Style]]]], system: ColorSystem) -> str:
    """What Textual writes for these lines: a cursor move, then each segment as ESC[..m text ESC[0m."""
    out = []
    for y, x, segs in drawn:
        out.append(f"\x1b[{y + 1};{x + 1}H")
        out.extend(Strip.render_style(style, text, system) for text, style in segs)
    return "".join(out)


@settings(max_examples=120, deadline=None)
@given(st.lists(lines, min_size=1, max_size=4), st.sampled_from([ColorSystem.TRUECOLOR, ColorSystem.EIGHT_BIT,
                                                                ColorSystem.STANDARD]))
def test_compacted_frames_show_the_same_screen(frames: list[list], system: ColorSystem) -> None:
    raw = [frame(f, system) for f in frames]
    compactor = SgrCompactor()
    compacted = [compactor.compact(data) for data in raw]
    assert shown(compacted) == shown(raw)
    assert sum(map(len, compacted)) <= sum(map(len, raw))


def test_a_typical_line_loses_its_repeated_background_and_resets() -> None:
    bg = "#1c1f26"
    segs = [("The", Style(color="#3fb950", bgcolor=bg)), (" keeper⁺", Style(color="#58a6ff", bgcolor=bg, bold=True)),
            (" watched", Style(color="#f85149", bgcolor=bg, strike=True, dim=True)),
            (" ▸looked", Style(color="#f5a524", bgcolor=bg, bold=True)), (" at", Style(color="#3fb950", bgcolor=bg))]
    raw = frame([(0, 0, segs)], ColorSystem.TRUECOLOR)
    out = SgrCompactor().compact(raw)
    assert shown([out]) == shown([raw])
    assert out.count("48;2;28;31;38") == 1 and out.count("\x1b[0m") == 1 and len(out) < 0.75 * len(raw)


def test_other_sequences_get_the_exact_state_first_and_unknown_sgr_passes_through() -> None:
    compactor = SgrCompactor()
    out = compactor.compact("\x1b[1;31mA\x1b[0m\x1b[2J\x1b[58;5;3mB\x1b[0mC")
    # the erase runs in the default state (Textual's reset before it is kept)
    assert out.index("\x1b[2J") > out.index("A") and out[:out.index("\x1b[2J")].endswith("m")
    assert "\x1b[58;5;3m" in out
    assert shown([out]) == shown(["\x1b[1;31mA\x1b[0m\x1b[2J\x1b[58;5;3mB\x1b[0mC"])
