"""The grid cuts no word short: a row too wide for its cells draws each cell's short form (a glyph the
legend names), a header too wide drops its token space mark."""

from __future__ import annotations

from textual.app import ComposeResult

from specview.tui.app import BaseApp
from specview.widgets.grid import Cell, Grid


class GridApp(BaseApp):
    """specview's shell (its theme's colours) around one grid."""

    def compose(self) -> ComposeResult:
        yield Grid(cell_width=10, short_header=True, id="g")


def shown(grid: Grid) -> list[str]:
    return str(grid.render()).splitlines()


async def test_a_row_too_wide_draws_its_short_forms_and_a_header_drops_its_space_mark() -> None:
    app = GridApp()
    async with app.run_test(size=(32, 6)) as pilot:  # cells of 8: seven characters and a space
        grid = app.query_one(Grid)
        states = [Cell("■ cached", "on", "■"), Cell("◆ pending", "warn", "◆"), Cell("□ free", "off", "□")]
        tokens = [Cell("The", short="The"), Cell("␣thought", short="thought"), Cell("␣climbed", short="climbed")]
        grid.set(["token", "slot"], ["␣thought", "1", "2"], [tokens, states])
        await pilot.pause()
        header, token_row, slot_row = shown(grid)
        assert "…" not in "".join(shown(grid))
        assert "thought" in header and "␣thought" not in header
        assert slot_row.split()[1:] == ["■", "◆", "□"]  # one too wide: the whole row as glyphs
        assert "thought" in token_row and "climbed" in token_row
        await pilot.resize_terminal(80, 6)
        await pilot.pause()
        header, token_row, slot_row = shown(grid)
        assert "■ cached" in slot_row and "␣thought" in header and "␣climbed" in token_row  # room: the words


async def test_cells_without_a_short_form_are_cut_as_before() -> None:
    app = GridApp()
    async with app.run_test(size=(30, 6)) as pilot:
        grid = app.query_one(Grid)
        grid.set(["row"], ["a", "b", "c"], [[Cell("undecided"), Cell("x"), Cell("y")]])
        await pilot.pause()
        assert "…" in shown(grid)[1]
