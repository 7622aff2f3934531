"""Acceptance by draft position: P(draft k accepted | draft k verified).

Every drafted position has its bar. Where a widget may take only so many rows (a compare pane:
`max_rows`), more positions fold into columns side by side (γ 10 in 8 rows: 1–5 and 6–10), each
bar as long as the width allows; elsewhere one bar a row, and the side panel scrolls.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from specview.widgets.bars import bar

Position = tuple[float | None, str]  # (fraction for the bar, the value as text)


class PositionBars(Widget):
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

    def set(self, values: Sequence[Position]) -> None:
        """Show these positions; redraws only when one of them changed."""
        shown = tuple(values)
        if shown == self.values:
            return
        relayout = len(shown) != len(self.values)
        self.values = shown
        self.refresh(layout=relayout)

    def render(self) -> Text:
        label = self.get_component_rich_style("bars--label")
        fill = self.get_component_rich_style("bars--bar")
        out = Text(no_wrap=True, overflow="ellipsis")
        if not self.values:
            out.append(self.empty, label)
            return out
        longest = max(3, *(len(shown) for _, shown in self.values))  # the value and the rounds behind it
        count = len(self.values)
        columns = 1 if not self.max_rows else math.ceil(count / self.max_rows)
        rows = math.ceil(count / columns)  # as even as they go: 10 in 8 rows are 5 + 5
        column_width = (self.size.width - (columns - 1)) // columns  # one space between columns
        width = max(3, min(20, column_width - 8 - longest))
        for row in range(rows):
            if row:
                out.append("\n")
            for k in range(row, count, rows):
                fraction, shown = self.values[k]
                if k != row:
                    out.append(" ")
                out.append(f"{k + 1:>2} ▕", label)
                out.append(bar(fraction or 0.0, width), fill)
                out.append("▏", label)
                out.append(f" {shown:<{longest}}" if k + rows < count else f" {shown:<3}", label)
        return out
