"""The compare screen's live summary table; the leader of each column is marked ▲."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import DataTable

from specview.core.summary import COLUMNS, SummaryRow, leaders

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


class SummaryTable(DataTable[Text]):
    """One row per run; cells update in place."""

    DEFAULT_CSS = "SummaryTable { height: auto; max-height: 8; }"

    def on_mount(self) -> None:
        self.cursor_type = "none"
        self.add_column("run", key="run")
        for key in COLUMNS:
            self.add_column(HEADERS[key], key=key)

    def show(self, rows: Sequence[SummaryRow]) -> None:
        lead = leaders(rows)
        for i, row in enumerate(rows):
            key = str(i)
            if key not in self.rows:
                self.add_row(Text(row.label), *[Text("—") for _ in COLUMNS], key=key)
            for column in COLUMNS:
                value = row.values[column]
                shown = "—" if value is None else format(value, FORMATS[column])
                if column == "speedup" and value is not None:
                    shown += "×"
                cell = Text(shown + (" ▲" if lead[column] == i else "  "), justify="right",
                            style="bold" if lead[column] == i else "")
                self.update_cell(key, column, cell)
