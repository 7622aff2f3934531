"""The fleet's table: one line per instance under a fixed header, a fixed totals line at the bottom.

Line API (like the token view): only the lines in view are drawn, so a hundred instances cost what
the visible twenty do, and a line is cut to its cells' widths, never wrapped. Each row has a kind
that picks its style (plain, alert, outlier, down); the kinds' meaning also shows as marks in the
row's cells (the caller puts them there), so the table reads the same without colour. ↑/↓, page
keys, home/end move the cursor; the caller asks which row it is on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from specview.widgets.bars import fit
from specview.widgets.bindings import bind

KINDS = ("plain", "alert", "outlier", "down")
HEAD_LINES = 1  # the header line above the rows
FOOT_LINES = 1  # the totals line below them


@dataclass(frozen=True, slots=True)
class TableRow:
    """One line: its cells (already made safe to show) and its kind (from KINDS)."""

    cells: tuple[str, ...]
    kind: str = "plain"


def line_text(cells: Sequence[str], widths: Sequence[int], rights: Sequence[bool]) -> str:
    """The cells laid out in their widths, one space between columns, never wider than Σ widths."""
    parts = []
    for cell, width, right in zip(cells, widths, rights, strict=False):
        shown = fit(cell, width)
        if right and (kept := shown.rstrip()) == cell:  # right-aligned, padded by cells (a zh label is wide)
            shown = fit("", width - _cells(kept)) + kept
        parts.append(shown)
    return " ".join(parts)


def _cells(text: str) -> int:
    from rich.cells import cell_len

    return len(text) if text.isascii() else cell_len(text)


class FleetTable(ScrollView, can_focus=True):
    """Header, rows (scrolling, with a cursor) and totals; redraws when what it shows changed."""

    DEFAULT_CSS = """
    FleetTable { height: 1fr; scrollbar-size-vertical: 1; overflow-x: hidden; }
    FleetTable > .fleet--header { color: $text-muted; text-style: bold; }
    FleetTable > .fleet--totals { color: $text; text-style: bold; background: $panel; }
    FleetTable > .fleet--plain { color: $text; }
    FleetTable > .fleet--alert { color: $error; text-style: bold; }
    FleetTable > .fleet--outlier { color: $warning; }
    FleetTable > .fleet--down { color: $text-disabled; }
    FleetTable > .fleet--cursor { text-style: reverse; }
    """
    COMPONENT_CLASSES = {f"fleet--{k}" for k in KINDS} | {"fleet--header", "fleet--totals", "fleet--cursor"}
    BINDINGS = [
        bind("up", "move(-1)", "fleet_table.up", show=False),
        bind("down", "move(1)", "fleet_table.down", show=False),
        bind("pageup", "page(-1)", "fleet_table.page_up", show=False),
        bind("pagedown", "page(1)", "fleet_table.page_down", show=False),
        bind("home", "move(-1000000)", "fleet_table.first", show=False),
        bind("end", "move(1000000)", "fleet_table.last", show=False),
    ]

    class Moved(Message):
        """The cursor moved to another row (index into the rows as given)."""

        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.header = ""
        self.totals = ""
        self.rows: tuple[TableRow, ...] = ()
        self.widths: tuple[int, ...] = ()
        self.rights: tuple[bool, ...] = ()
        self.cursor = 0
        self._whole = (False, False)

    def show(self, header: Sequence[str], rows: Sequence[TableRow], totals: Sequence[str],
             widths: Sequence[int], rights: Sequence[bool], cursor: int) -> None:
        """Replace what the table shows; `cursor` is the row to stand on (clamped)."""
        self.widths, self.rights = tuple(widths), tuple(rights)
        self._whole = (len(header) == len(widths), len(totals) == len(widths))  # lines as wide as the columns
        new_header = line_text(header, widths, rights)
        new_totals = line_text(totals, widths, rights)
        new_rows = tuple(rows)
        new_cursor = max(0, min(cursor, len(new_rows) - 1))
        if (new_header, new_totals, new_rows, new_cursor) == (self.header, self.totals, self.rows, self.cursor):
            return
        self.header, self.totals, self.rows, self.cursor = new_header, new_totals, new_rows, new_cursor
        self.virtual_size = Size(sum(self.widths) + len(self.widths), len(new_rows) + HEAD_LINES + FOOT_LINES)
        self._keep_cursor_in_view()
        self.refresh()

    @property
    def body_height(self) -> int:
        return max(1, self.scrollable_content_region.height - HEAD_LINES - FOOT_LINES)

    def _keep_cursor_in_view(self) -> None:
        top = int(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + self.body_height:
            self.scroll_to(y=self.cursor - self.body_height + 1, animate=False, immediate=True)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        height = self.scrollable_content_region.height
        style = self.get_component_rich_style
        if y == 0:
            return self._strip(self.header, style("fleet--header"), width, self._cells_if(self._whole[0]))
        if y == height - 1:
            return self._strip(self.totals, style("fleet--totals"), width, self._cells_if(self._whole[1]))
        index = int(self.scroll_offset.y) + y - HEAD_LINES
        if index >= len(self.rows) or y >= height - FOOT_LINES:
            return Strip.blank(width, self.rich_style)
        row = self.rows[index]
        line_style = style(f"fleet--{row.kind if row.kind in KINDS else 'plain'}")
        if index == self.cursor:
            line_style += style("fleet--cursor")
        return self._strip(line_text(row.cells, self.widths, self.rights), line_style, width,
                           self._cells_if(len(row.cells) == len(self.widths)))

    def _cells_if(self, whole: bool) -> int | None:
        """How wide `line_text` makes a line with a cell for every column (each is fitted to its
        width), else None (measure it)."""
        return sum(self.widths) + max(0, len(self.widths) - 1) if whole else None

    def _strip(self, line: str, style: Style, width: int, cells: int | None = None) -> Strip:
        """One line as a strip of `width` cells; `cells` is the line's own width where known (no
        measuring: a hundred-row table draws every line of every poll)."""
        if cells is not None and cells <= width:
            return Strip([Segment(line + " " * (width - cells), style)], width)
        return Strip([Segment(fit(line, width), style)], width)

    def action_move(self, step: int) -> None:
        self._go(self.cursor + step)

    def action_page(self, step: int) -> None:
        self._go(self.cursor + step * self.body_height)

    def _go(self, row: int) -> None:
        row = max(0, min(row, len(self.rows) - 1))
        if row != self.cursor and self.rows:
            self.cursor = row
            self._keep_cursor_in_view()
            self.refresh()
            self.post_message(self.Moved(row))
