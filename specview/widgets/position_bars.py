"""Acceptance by draft position: P(draft k accepted | draft k verified).

Every drafted position has its bar. Where a widget may take only so many rows (a compare pane:
`max_rows`), more positions fold into columns side by side (γ 10 in 8 rows: 1–5 and 6–10), each
bar as long as the width allows; elsewhere one bar a row, and the side panel scrolls.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip

from specview.widgets.bars import bar
from specview.widgets.row_fit import fit_row
from specview.widgets.settled import Settled

Position = tuple[float | None, str]  # (fraction for the bar, the value as text)


class PositionBars(Settled):
    """One bar per draft position with its value as given; `empty` until a round drafted."""

    DEFAULT_CSS = """
    PositionBars { height: auto; min-height: 1; }
    PositionBars > .bars--bar { color: $token-accepted; }
    PositionBars > .bars--label { color: $text-muted; }
    """
    COMPONENT_CLASSES = {"bars--bar", "bars--label"}

    def __init__(self, empty: str = "", max_rows: int | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.empty = empty
        self.max_rows = max_rows
        self.values: tuple[Position, ...] = ()
        self._bar_styles: tuple[Style, Style, Style] | None = None

    def set(self, values: Sequence[Position]) -> None:
        """Show these positions; redraws only when one of them changed."""
        shown = tuple(values)
        if shown == self.values:
            return
        relayout = len(shown) != len(self.values)
        self.values = shown
        self.refresh(layout=relayout)

    def _looks(self) -> tuple[Style, Style, Style]:
        """The widget's own style, the labels' and the bars' (each walks the DOM: kept until the
        styles change)."""
        if self._bar_styles is None:
            self._bar_styles = (self.rich_style, self.get_component_rich_style("bars--label"),
                            self.get_component_rich_style("bars--bar"))
        return self._bar_styles

    def notify_style_update(self) -> None:
        self._bar_styles = None
        super().notify_style_update()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._rows() if self.values else 1

    def _rows(self) -> int:
        count = len(self.values)
        columns = 1 if not self.max_rows else math.ceil(count / self.max_rows)
        return math.ceil(count / columns)  # as even as they go: 10 in 8 rows are 5 + 5

    def render_line(self, y: int) -> Strip:
        # Line by line, in segments: a rich Text through Textual's text layout took 3 ms a redraw,
        # four panes five times a second.
        width = self.size.width
        base, label, fill = self._looks()
        if not self.values:
            return fit_row([Segment(self.empty, label)] if y == 0 else [], width, base)
        count, rows = len(self.values), self._rows()
        if y >= rows:
            return Strip.blank(width, base)
        columns = math.ceil(count / rows)
        longest = max(3, *(len(shown) for _, shown in self.values))  # the value and the rounds behind it
        column_width = (width - (columns - 1)) // columns  # one space between columns
        bar_width = max(3, min(20, column_width - 8 - longest))
        segments: list[Segment] = []
        for k in range(y, count, rows):
            fraction, shown = self.values[k]
            if k != y:
                segments.append(Segment(" ", base))
            segments.append(Segment(f"{k + 1:>2} ▕", label))
            segments.append(Segment(bar(fraction or 0.0, bar_width), fill))
            segments.append(Segment("▏", label))
            segments.append(Segment(f" {shown:<{longest}}" if k + rows < count else f" {shown:<3}", label))
        return fit_row(segments, width, base)

