"""The token view finishes its own lines while its box is plain: cell for cell what Textual's
own finishing makes of the same content, under every look and filter; a line is finished once
and comes back as the same Strip wherever it is drawn."""

from __future__ import annotations

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.filter import ANSIToTruecolor, DimFilter, LineFilter, Monochrome, NoColor
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from specview.kernel.events import TokenEvent, TokenStatus
from specview.tui.terminal.style_runs import MergeRuns
from specview.widgets.token_view import TokenView
from tests.app.test_token_view import ViewApp, words

STATUSES = [TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS,
            TokenStatus.DISCARDED, TokenStatus.PLAIN]


def mixed(n: int) -> list[TokenEvent]:
    """Every status, inferred or not, wide characters, a line break and a token longer than a line."""
    texts = [" alpha", " 数据", "\n", " β", " " + "x" * 70, " ok", " 😀"]
    return [TokenEvent(i, texts[i % len(texts)], STATUSES[i % len(STATUSES)], inferred=i % 5 == 0)
            for i in range(n)]


def cells(strips: list[Strip]) -> list[list[tuple[str, Style | None]]]:
    """Each line as (character, style) per cell: two Strips drawn the same compare equal."""
    return [[(ch, seg.style) for seg in strip for ch in seg.text] for strip in strips]


def whole(view: Widget) -> Region:
    return Region(0, 0, view.size.width, view.size.height)


def textual_lines(view: TokenView, crop: Region) -> list[Strip]:
    return Widget.render_lines(view, crop)  # Textual's own finishing, from render_line


class Shade(LineFilter):
    """A filter Textual does not ship: applied to whole Strips, never assumed to map styles."""

    def apply(self, segments: list[Segment], background: object) -> list[Segment]:
        return [Segment(s.text.upper(), s.style, s.control) for s in segments]


LOOKS = {
    "the compare pane's": "padding: 0; scrollbar-size-vertical: 0;",
    "the live screen's": "padding: 0 1; scrollbar-gutter: stable; scrollbar-size-vertical: 1;",
    "wide padding": "padding: 0 3 0 2;",
}


@pytest.mark.parametrize("css", LOOKS.values(), ids=LOOKS.keys())
@pytest.mark.parametrize("extra", [None, NoColor, Monochrome, DimFilter, MergeRuns, Shade], ids=str)
async def test_finished_lines_are_the_lines_textual_would_make(css: str, extra: type[LineFilter] | None) -> None:
    app = ViewApp()
    async with app.run_test(size=(44, 14)) as pilot:
        view = app.query_one(TokenView)
        view.set_styles(css)
        if extra is not None:
            app.added_filters.append(extra())
        view.append(mixed(120))
        await pilot.pause()
        assert view.finished_count > 0  # the screen was drawn by the fast path
        ours = view.render_lines(whole(view))
        theirs = textual_lines(view, whole(view))
        assert cells(ours) == cells(theirs)
        assert [s.cell_length for s in ours] == [s.cell_length for s in theirs]
        view.select(view.token_count - 3)  # a selected token's style too
        await pilot.pause()
        assert cells(view.render_lines(whole(view))) == cells(textual_lines(view, whole(view)))
        part = Region(2, 1, 20, 5)  # a crop, as when a pane is partly covered
        assert cells(view.render_lines(part)) == cells(textual_lines(view, part))


async def test_true_colour_is_applied_like_textual() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 10)) as pilot:
        assert any(isinstance(f, ANSIToTruecolor) for f in app.get_line_filters())
        view = app.query_one(TokenView)
        view.append(mixed(60))
        await pilot.pause()
        assert cells(view.render_lines(whole(view))) == cells(textual_lines(view, whole(view)))


async def test_a_box_that_is_not_plain_is_left_to_textual() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(TokenView)
        view.append(words(0, 100))
        await pilot.pause()
        view.styles.tint = "red 50%"
        view.styles.border = ("round", "white")
        await pilot.pause()
        count = view.finished_count
        lines = view.render_lines(whole(view))
        assert view.finished_count == count
        assert cells(lines) == cells(textual_lines(view, whole(view)))
        assert "╭" in "".join(s.text for s in lines)


async def test_a_scrolled_line_comes_back_as_the_same_strip() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(TokenView)
        view.append(words(0, 400))
        await pilot.pause()
        view.scroll_to(y=10, animate=False, immediate=True)
        await pilot.pause()
        before = view.render_lines(whole(view))
        view.scroll_to(y=11, animate=False, immediate=True)  # every line moves up one row
        await pilot.pause()
        count = view.finished_count
        after = view.render_lines(whole(view))
        assert all(a is b for a, b in zip(after[:-1], before[1:], strict=True))
        assert view.finished_count == count  # drawn once (by the screen), not again


async def test_a_changed_look_finishes_the_lines_again() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(TokenView)
        view.append(words(0, 100))
        await pilot.pause()
        before = view.render_lines(whole(view))
        app.theme = "textual-light"
        await pilot.pause()
        after = view.render_lines(whole(view))
        assert not any(a is b for a, b in zip(after, before, strict=True))
        assert [s.text for s in after] == [s.text for s in before]
        assert cells(after) == cells(textual_lines(view, whole(view)))


async def test_appending_finishes_only_the_lines_it_changed() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 30)) as pilot:
        view = app.query_one(TokenView)
        view.append(words(0, 30))  # a few lines, no scrolling
        await pilot.pause()
        before = view.render_lines(whole(view))
        last = view.line_count - 1
        view.append(words(30, 1))
        await pilot.pause()
        after = view.render_lines(whole(view))
        changed = [y for y, (a, b) in enumerate(zip(after, before, strict=True)) if a is not b]
        assert changed and min(changed) >= last


async def test_a_line_is_its_tokens_in_runs_of_one_style() -> None:
    app = ViewApp()
    async with app.run_test(size=(44, 14)) as pilot:
        view = app.query_one(TokenView)
        view.append(mixed(300))
        view.set_display(separators=True)
        await pilot.pause()
        layout, paint = view._layout, view._paint
        for selected in (None, 7, 123):
            for y in range(layout.line_count):
                pieces = []  # the plain way: a segment a piece, then Rich's simplify
                for token, start, end in layout.lines[y]:
                    event = layout.tokens[token]
                    piece = layout.texts[token][start:end]
                    style = paint.style(event.status, event.inferred, token == selected)
                    if start == 0 and layout.separated(token):
                        pieces.append(Segment(piece[:1], paint.separator()))
                        piece = piece[1:]
                    pieces.append(Segment(piece, style))
                segments, cells = paint.line(layout, y, selected, lambda style: style)
                assert segments == list(Segment.simplify(pieces)), y
                assert cells == Strip(pieces).cell_length
