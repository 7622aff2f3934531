"""A windowed quantity (α, τ, γ, tokens/s) over time, drawn on a scale it states.

The top and the bottom of the scale are written left of the rows (chart_scale.py says which
scale: a rate's own 0–1, else 0 … the largest value), one column per point, the latest at the
right edge; a point without a value is a gap.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from specview.widgets.chart_scale import Scale, column_rows, scale_label, scale_of
from specview.widgets.row_fit import fit_row


class HistoryChart(Widget):
    """Rows of columns with the scale's ends beside them; `show` replaces the series."""

    DEFAULT_CSS = """
    HistoryChart { height: 3; }
    HistoryChart > .history--bar { color: $token-accepted; }
    HistoryChart > .history--scale { color: $text-muted; }
    """
    COMPONENT_CLASSES = {"history--bar", "history--scale"}

    def __init__(self, fixed: tuple[float, float] | None = None, *, rate: bool = False, **kwargs: object) -> None:
        """`fixed`: the quantity's own range (chart_scale.RATE for α); `rate`: its ends to two places."""
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.fixed, self.rate = fixed, rate
        self.data: tuple[float | None, ...] = ()
        self._drawn: tuple[object, tuple[str, str], list[str]] | None = None  # (what, labels, rows) of the last draw

    @property
    def scale(self) -> Scale:
        return scale_of(self.data, self.fixed)

    def show(self, values: Sequence[float | None]) -> None:
        """Show the latest points of `values` (as many as the width holds); redraws on a change."""
        data = tuple(values[-max(8, self.size.width) :]) if values else ()
        if data != self.data:
            self.data = data
            self.refresh()

    def labels(self) -> tuple[str, str]:
        """The scale's top and bottom as written beside the rows."""
        scale = self.scale
        return scale_label(scale.high, rate=self.rate), scale_label(scale.low, rate=self.rate)

    def _rows(self) -> tuple[tuple[str, str], list[str]]:
        """The labels and every row's cells, worked out once per data and size (render_line asks per row)."""
        what = (self.data, self.size.width, self.size.height)
        if self._drawn is None or self._drawn[0] != what:
            top, bottom = self.labels()
            room = max(0, self.size.width - max(len(top), len(bottom)) - 1)
            points = self.data[-room:] if room else ()
            rows = column_rows(points, self.scale, self.size.height) if self.size.height > 0 else []
            self._drawn = (what, (top, bottom), rows)
        return self._drawn[1], self._drawn[2]

    def render_line(self, y: int) -> Strip:
        width, rows = self.size.width, self.size.height
        base = self.rich_style
        label_style: Style = self.get_component_rich_style("history--scale")
        (top, bottom), drawn = self._rows()
        gutter = max(len(top), len(bottom))
        room = max(0, width - gutter - 1)
        cells = drawn[y] if y < len(drawn) else ""
        said = top if y == 0 else bottom if y == rows - 1 else ""
        segments = [Segment(f"{said:>{gutter}}▕", label_style),
                    Segment(cells.rjust(room), self.get_component_rich_style("history--bar"))]
        return fit_row(segments, width, base)
