"""Settled widgets hand the compositor the lines they drew last time, and new ones as soon as anything
that shapes them changes: an update, a new size, a new theme, a style, a line filter."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.filter import Monochrome
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from specview.themes.loader import TOKEN_DEFAULTS
from specview.widgets.position_bars import PositionBars
from specview.widgets.settled import SettledFooter
from specview.widgets.text_line import TextLine
from tests.support.line_filters import AddedLineFilters


class LinesApp(AddedLineFilters):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(TOKEN_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield TextLine("first", id="line")
        yield PositionBars("none yet", id="bars")
        yield SettledFooter()


def lines(widget: Widget) -> list[Strip]:
    return widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))


async def test_unchanged_lines_come_back_as_the_same_list() -> None:
    app = LinesApp()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        for widget in (app.query_one(TextLine), app.query_one(PositionBars), app.query_one(SettledFooter)):
            assert lines(widget) is lines(widget)


async def test_anything_that_shapes_the_lines_draws_them_again() -> None:
    app = LinesApp()
    async with app.run_test(size=(60, 12)) as pilot:
        line, bars = app.query_one(TextLine), app.query_one(PositionBars)
        await pilot.pause()
        before = lines(line)
        line.show("second")  # an update
        await pilot.pause()
        assert "second" in lines(line)[0].text and lines(line) is not before
        drawn = lines(bars)
        bars.set([(0.5, "0.50"), (0.25, "0.25")])  # new values, and a new height
        await pilot.pause()
        assert [s.text.split("▕")[0].strip() for s in lines(bars)] == ["1", "2"] and lines(bars) is not drawn
        for change in (lambda: setattr(app, "theme", "textual-light"),  # the colours behind them
                       lambda: setattr(line.styles, "color", "red"),  # a style of their own
                       lambda: app.added_filters.append(Monochrome())):  # the app's line filters
            before = lines(line)
            change()
            await pilot.pause()
            after = lines(line)
            assert after is not before and [s.text for s in after] == [s.text for s in before]
        await pilot.resize_terminal(40, 12)  # a new size
        await pilot.pause()
        assert lines(line)[0].cell_length == 40
