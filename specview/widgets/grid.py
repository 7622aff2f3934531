"""A labelled grid of short cells (attention mask, cache slots, tables); ↑/↓ select a row when focused.

Each cell carries a state that picks its style; callers choose glyphs that carry the meaning
without colour (● attends, · masked, ✗ rejected…), so the grid reads the same under NO_COLOR.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.message import Message
from textual.widget import Widget

from specview.widgets.bars import fit
from specview.widgets.bindings import bind

STATES = ("plain", "on", "off", "muted", "good", "bad", "warn", "info", "header")
MIN_CELL = 5  # narrowest cell a narrow terminal gets: four characters and a space


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell: its text and a state from STATES; `short` (if any) stands in for the text in a row where
    some text is too wide for its cell, or for its own text when that is too wide (a glyph whose word the
    legend gives), so no word is cut short."""

    text: str
    state: str = "plain"
    short: str = ""


class Grid(Widget):
    """Rows × columns with headers; a selected row is marked ▶ and emphasised."""

    DEFAULT_CSS = """
    Grid { height: auto; min-height: 1; }
    Grid > .grid--plain { color: $text; }
    Grid > .grid--on { color: $token-accepted; text-style: bold; }
    Grid > .grid--off { color: $text-disabled; }
    Grid > .grid--muted { color: $text-muted; }
    Grid > .grid--good { color: $token-accepted; }
    Grid > .grid--bad { color: $token-rejected; }
    Grid > .grid--warn { color: $token-corrected; }
    Grid > .grid--info { color: $token-bonus; }
    Grid > .grid--header { color: $text-muted; }
    Grid > .grid--selected { text-style: bold reverse; }
    """
    COMPONENT_CLASSES = {f"grid--{s}" for s in STATES} | {"grid--selected"}
    BINDINGS = [
        bind("up", "select(-1)", "grid.up", show=False),
        bind("down", "select(1)", "grid.down", show=False),
    ]

    class RowSelected(Message):
        """The selected row changed."""

        def __init__(self, grid: Grid, row: int) -> None:
            super().__init__()
            self.grid = grid
            self.row = row

        @property
        def control(self) -> Grid:
            return self.grid

    def __init__(self, *, cell_width: int = 4, selectable: bool = False, short_header: bool = False,
                 gap: int = 1, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.can_focus = selectable
        self.cell_width = cell_width
        self.gap = gap  # spaces after each cell's text (within cell_width): 2 keeps wide texts from running together
        self.short_header = short_header  # a header too wide: the headers drop their leading "␣" (a token's space)
        self.row_labels: tuple[str, ...] = ()
        self.column_labels: tuple[str, ...] = ()
        self.cells: tuple[tuple[Cell, ...], ...] = ()
        self.selected: int | None = None
        self.selected_cells: frozenset[tuple[int, int]] = frozenset()

    def set(self, row_labels: Sequence[str], column_labels: Sequence[str], cells: Sequence[Sequence[Cell]],
            *, selected: int | None = None, emphasise: Sequence[tuple[int, int]] = ()) -> None:
        """Replace the contents; `emphasise` lists (row, column) cells drawn reversed."""
        if len(cells) != len(row_labels) or any(len(r) != len(column_labels) for r in cells):
            raise ValueError("cells must be rows × columns")
        relayout = len(row_labels) != len(self.row_labels)
        self.row_labels, self.column_labels = tuple(row_labels), tuple(column_labels)
        self.cells = tuple(tuple(r) for r in cells)
        self.selected = selected
        self.selected_cells = frozenset(emphasise)
        self.refresh(layout=relayout)

    def action_select(self, step: int) -> None:
        if not self.row_labels:
            return
        row = 0 if self.selected is None else max(0, min(len(self.row_labels) - 1, self.selected + step))
        if row != self.selected:
            self.selected = row
            self.refresh()
            self.post_message(self.RowSelected(self, row))

    def shown_width(self, head: int | None = None) -> int:
        """Cells as wide as asked, narrowed (down to MIN_CELL) so that every column fits the widget:
        a narrow terminal cuts texts short (…) instead of wrapping a row onto the next line."""
        if head is None:
            head = max([cell_len(x) for x in self.row_labels] + [1]) + 3
        room = self.size.width - head
        if room <= 0 or not self.column_labels:
            return self.cell_width
        # the last column needs no gap after it: a wider gap takes its cells from the room between columns only
        return max(MIN_CELL, min(self.cell_width, (room + self.gap - 1) // len(self.column_labels)))

    def render(self) -> Text:
        style = self.get_component_rich_style
        head = max([cell_len(x) for x in self.row_labels] + [1]) + 3  # mark, label, one space
        width = self.shown_width(head)
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(" " * head, style("grid--header"))
        short = self.short_header and any(cell_len(label) > width - self.gap for label in self.column_labels)
        for label in self.column_labels:  # one too wide: every header without its "␣", alike
            out.append(fit(label.removeprefix("␣") if short else label, width - self.gap) + " " * self.gap,
                       style("grid--header"))
        for r, label in enumerate(self.row_labels):
            out.append("\n")
            chosen = r == self.selected
            mark = "▶ " if chosen else "  "
            out.append(mark + fit(label, head - 3), style("grid--selected" if chosen else "grid--header"))
            out.append(" ")
            row = self.cells[r]
            short = all(cell.short for cell in row) and any(cell_len(cell.text) > width - self.gap for cell in row)
            for c, cell in enumerate(row):
                cell_style = style(f"grid--{cell.state if cell.state in STATES else 'plain'}")
                if (r, c) in self.selected_cells:
                    cell_style = cell_style + style("grid--selected")
                # a row of glyphs alike; else a cell too narrow for its word and with a glyph for it shows the glyph
                glyph = short or (cell.short != "" and cell_len(cell.text) > width - self.gap)
                out.append(fit(cell.short if glyph else cell.text, width - self.gap), cell_style)
                out.append(" " * self.gap)
        return out
