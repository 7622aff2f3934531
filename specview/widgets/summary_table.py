"""The compare screen's live summary table; the leader of each column is marked ▲.

A plain widget that draws a few lines of fixed-width text: a DataTable re-renders each cell
through Rich on every update, which cost the compare screen more than all its streams.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from specview.core.summary import COLUMNS, SummaryRow, leaders
from specview.core.text import number, sanitize

HEADERS = {
    "alpha": "α",
    "tau": "τ",
    "expected_tau": "theory τ",
    "speedup": "speedup",
    "tokens_per_second": "tok/s",
    "draft_cost": "c",
}
FORMATS = {"alpha": ".3f", "tau": ".2f", "expected_tau": ".2f", "speedup": ".2f", "tokens_per_second": ".1f",
           "draft_cost": ".3f"}
LEAD = " ▲"
CELL_WIDTH = 11
LABEL_WIDTH = 34


def format_cell(column: str, value: float | None) -> str:
    """A value as the table shows it, without the leader mark."""
    shown = number(value, FORMATS[column])
    return shown + "×" if column == "speedup" and value is not None else shown


class SummaryTable(Widget):
    """One row per run; redraws only when a shown cell changed."""

    DEFAULT_CSS = """
    SummaryTable { height: auto; max-height: 8; }
    SummaryTable > .summary--header { color: $text-muted; text-style: bold; }
    SummaryTable > .summary--lead { text-style: bold; }
    """
    COMPONENT_CLASSES = {"summary--header", "summary--lead"}

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._labels: list[str] = []
        self._cells: list[dict[str, str]] = []
        self._lead: dict[str, int | None] = {}

    def show(self, rows: Sequence[SummaryRow]) -> None:
        labels = [sanitize(row.label, LABEL_WIDTH, one_line=True) for row in rows]  # labels come from outside
        cells = [{c: format_cell(c, row.values[c]) for c in COLUMNS} for row in rows]
        lead = leaders(rows)
        if (labels, cells, lead) == (self._labels, self._cells, self._lead):
            return
        relayout = len(labels) != len(self._labels)
        self._labels, self._cells, self._lead = labels, cells, lead
        self.refresh(layout=relayout)

    def cell(self, row: int, column: str) -> str:
        """What row `row` shows in `column`, leader mark included."""
        return self._cells[row][column] + (LEAD if self._lead.get(column) == row else "")

    def render(self) -> Text:
        header = self.get_component_rich_style("summary--header", partial=True)
        bold = self.get_component_rich_style("summary--lead", partial=True)
        width = min(LABEL_WIDTH, max((len(label) for label in self._labels), default=3) + 1)
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append("run".ljust(width), header)
        for column in COLUMNS:
            out.append(HEADERS[column].rjust(CELL_WIDTH - len(LEAD)) + "  ", header)
        for i, label in enumerate(self._labels):
            out.append("\n")
            out.append(label[: width - 1].ljust(width))
            for column in COLUMNS:
                led = self._lead.get(column) == i
                shown = self._cells[i][column].rjust(CELL_WIDTH - len(LEAD)) + (LEAD if led else "  ")
                out.append(shown, bold if led else "")
        return out
