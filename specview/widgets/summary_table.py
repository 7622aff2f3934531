"""The compare screen's live summary table; the leader of each column is marked ▲.

A plain widget that draws a few lines of fixed-width text: a DataTable re-renders each cell
through Rich on every update, which cost the compare screen more than all its streams.
It draws the texts it is given (headers, labels, cells): the gauge table formats them. Where
its rows would be wider than the widget, it leaves out columns in the order it is given (the
caller's: tui/gauges.py SUMMARY_DROP), so each row stays one line.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip

from specview.boundary.text import sanitize
from specview.widgets.row_fit import fit_row
from specview.widgets.settled import Settled

LEAD = " ▲"
CELL_WIDTH = 11
LABEL_WIDTH = 34


class SummaryTable(Settled):
    """One row per run; redraws only when a shown cell changed."""

    DEFAULT_CSS = """
    SummaryTable { height: auto; max-height: 8; }
    SummaryTable > .summary--header { color: $text-muted; text-style: bold; }
    SummaryTable > .summary--lead { text-style: bold; }
    """
    COMPONENT_CLASSES = {"summary--header", "summary--lead"}

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._headers: list[str] = []
        self._labels: list[str] = []
        self._cells: list[list[str]] = []
        self._lead: list[int | None] = []
        self._drop: list[int] = []
        self._rows: tuple[int, list[list[Segment]]] | None = None  # (width, rows) drawn from the texts

    def show(self, headers: Sequence[str], labels: Sequence[str], cells: Sequence[Sequence[str]],
             lead: Sequence[int | None], drop: Sequence[int] = ()) -> None:
        """Headers (the label column's first), one row of cells per label, per column the index
        of the leading row (or None), and the value columns to leave out, first to last, where the
        rows would not fit. Labels come from outside: shown safe and short."""
        safe = [sanitize(label, LABEL_WIDTH, one_line=True) for label in labels]
        new = (list(headers), safe, [list(row) for row in cells], list(lead))
        self._drop = list(drop)
        if new == (self._headers, self._labels, self._cells, self._lead):
            return
        # a new row, or a row whose width changed (an origin that grew), needs a new layout
        relayout = len(labels) != len(self._labels) or [sum(map(len, row)) for row in new[2]] != [
            sum(map(len, row)) for row in self._cells]
        self._headers, self._labels, self._cells, self._lead = new
        self._rows = None
        self.refresh(layout=relayout)

    def cell(self, row: int, column: int) -> str:
        """What row `row` shows in column `column` (0 = the first value column), leader mark included."""
        return self._cells[row][column] + (LEAD if self._lead[column] == row else "")

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1 + len(self._labels) if self._headers else 1

    def notify_style_update(self) -> None:
        self._rows = None
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        # Line by line, in segments: a rich Text through Textual's text layout took 4 ms a redraw.
        base = self.rich_style
        if self._rows is None or self._rows[0] != self.size.width:
            self._rows = (self.size.width, self._segments(base))
        rows = self._rows[1]
        return fit_row(rows[y], self.size.width, base) if y < len(rows) else Strip.blank(self.size.width, base)

    def _segments(self, base: Style) -> list[list[Segment]]:
        """Every row's segments: the header, then a row per run."""
        if not self._headers:
            return []
        header = base + self.get_component_rich_style("summary--header", partial=True)
        bold = base + self.get_component_rich_style("summary--lead", partial=True)
        # Widths in terminal cells, not characters: a model id in Chinese takes two a character,
        # and a label that is cut or padded by characters shifts every column after it.
        width = min(LABEL_WIDTH, max((cell_len(label) for label in self._labels), default=3) + 1)
        # a column is CELL_WIDTH wide, or as wide as its widest cell ("2.37× ± 0.14"), in every row
        widths = [max(CELL_WIDTH - len(LEAD), *(cell_len(row[c]) for row in self._cells if c < len(row)))
                  for c in range(len(self._headers) - 1)]
        kept = self._kept(width, widths)
        rows = [[Segment(_left(self._headers[0], width), header),
                 *(Segment(_right(self._headers[c + 1], widths[c]) + "  ", header) for c in kept)]]
        for i, label in enumerate(self._labels):
            row = [Segment(set_cell_size(label, width - 1) + " ", base)]
            for column in kept:
                led = self._lead[column] == i
                row.append(Segment(_right(self._cells[i][column], widths[column]) + (LEAD if led else "  "),
                                   bold if led else base))
            rows.append(row)
        return rows

    def _kept(self, label_width: int, widths: list[int]) -> list[int]:
        """The value columns drawn: all of them where they fit the widget, else fewer, left out
        in the order `show` was given (before the widget has a size: all)."""
        kept = list(range(len(widths)))
        room = self.size.width
        drop = iter(self._drop)
        while room and label_width + sum(widths[c] + len(LEAD) for c in kept) > room:
            column = next(drop, None)
            if column is None:
                break
            if column in kept:
                kept.remove(column)
        return kept


def _left(text: str, width: int) -> str:
    """`text` padded to `width` cells (str.ljust in cells)."""
    return text + " " * max(0, width - cell_len(text))


def _right(text: str, width: int) -> str:
    """`text` right-aligned in `width` cells (str.rjust in cells)."""
    return " " * max(0, width - cell_len(text)) + text
