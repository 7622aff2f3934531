"""Text from outside is as wide on the terminal as Rich lays it out (boundary/invisible.py).

Rich 15 counts U+3164 / U+FFA0 as 0 cells (a terminal draws 2 / 1), nothing for a zero-width
joiner *and the character after it*, a cell more for VS16, nothing for a skin-tone modifier;
tmux draws nothing for an unassigned code point where Rich counts one. After `sanitize` each of
them is a visible U+FFFD, and Rich's width of a text is what a wcwidth terminal draws.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.app import App, ComposeResult

from specview.boundary.text import REPLACEMENT, sanitize
from specview.widgets.summary_table import SummaryTable
from tests.support.terminal_width import drawn_width

FILLERS = ["\u3164", "\u1160", "\u115f", "\uffa0"]
TRICKY = [
    "\u3164" * 6,  # HANGUL FILLER: Rich 0, drawn 12
    "\uffa0" * 6,  # HALFWIDTH HANGUL FILLER: Rich 0, drawn 6
    "\u1160" * 6,  # HANGUL JUNGSEONG FILLER: Rich 0, drawn 0 here and 1 on other terminals
    "a\u200db\u200dc\u200dd",  # Rich counts the letter after each joiner as nothing: 1 cell for 4 letters
    "한\u200d글\u200d한\u200d글",
    "👨\u200d👩\u200d👧\u200d👦",  # one glyph on some terminals, four on others
    "❤\ufe0f✔\ufe0f⚠\ufe0f",  # VS16: Rich 2 cells each, tmux 1
    "👍🏽👋🏿",  # skin tones: Rich 2 for each pair, tmux 4
    "\u0378\u0379\U0003ffff",  # unassigned: Rich 1 each, tmux 0
    "\u00ad\u034f\u180e\u2064\U000e0041\U000e0100",  # soft hyphen, CGJ, Mongolian separator, tags, VS
]
ORDINARY = ["a", "Z", " ", "中", "文", "é", "e\u0301", "👍", "👨", "🇺", "🇸", "ä", "Ж", "α", "…", "│"]


@pytest.mark.parametrize("text", TRICKY)
def test_sanitized_text_is_as_wide_as_the_terminal_draws_it(text: str) -> None:
    clean = sanitize(text, one_line=True)
    assert cell_len(clean) == drawn_width(clean) == sum(cell_len(ch) for ch in clean), repr(clean)
    assert REPLACEMENT in clean  # made visible, not dropped


@pytest.mark.parametrize("filler", FILLERS)
def test_a_hangul_filler_is_visible(filler: str) -> None:
    assert sanitize(f"model{filler}id") == f"model{REPLACEMENT}id"


@given(st.lists(st.sampled_from(TRICKY + ORDINARY + ["\u200d", "\ufe0f", "\ufe0e", "\U0001f3fb", "\u200c"]),
                max_size=40))
@settings(max_examples=400, deadline=None)
def test_any_mix_is_as_wide_as_the_terminal_draws_it(pieces: list[str]) -> None:
    clean = sanitize("".join(pieces), one_line=True)
    assert cell_len(clean) == drawn_width(clean)


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield SummaryTable()


async def test_the_compare_summary_lines_up_whatever_the_labels() -> None:
    """Every row of the summary is as wide as its header on the terminal (it was cut and padded
    by characters: a label of fillers or Chinese shifted the columns after it)."""
    labels = ["url:m" + "\u3164" * 12, "url:通义千问-大模型 γ3", "url:a\u200db\u200dc👨\u200d👩\u200d👧", "sim:plain"]
    app = Host()
    async with app.run_test(size=(120, 12)):
        table = app.query_one(SummaryTable)
        table.show(["运行", "接受率 α", "τ", "tok/s"], labels,
                   [["0.71", "3.2", "41.0"], ["0.65", "2.9", "38.5"], ["0.80", "3.9", "50.1"], ["—", "1.0", "9"]],
                   [2, 2, 2])
        assert table.get_content_height(table.size, table.size, table.size.width) == 1 + len(labels)
        lines = [table.render_line(y).text for y in range(1 + len(labels))]  # each padded to the widget's width
        widths = {drawn_width(line) for line in lines}
        assert widths == {cell_len(lines[0])}, [(drawn_width(line), line) for line in lines]
        # the values stand in the same cells in every row
        value_columns = {drawn_width(line[: line.index(value)]) + cell_len(value)
                         for line, value in zip(lines[1:], ["41.0", "38.5", "50.1", "9"], strict=True)}
        assert len(value_columns) == 1
