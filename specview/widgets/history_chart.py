"""A sparkline of a windowed quantity (τ or α) over time."""

from __future__ import annotations

from collections.abc import Sequence

from textual.widgets import Sparkline


class HistoryChart(Sparkline):
    """Textual's Sparkline, fed at a low rate (it redraws whole on change)."""

    DEFAULT_CSS = """
    HistoryChart { height: 3; }
    HistoryChart > .sparkline--max-color { color: $token-accepted; }
    HistoryChart > .sparkline--min-color { color: $token-rejected 70%; }
    """

    def show(self, values: Sequence[float]) -> None:
        data = list(values[-max(8, self.size.width) :]) if values else []
        if data != self.data:
            self.data = data
