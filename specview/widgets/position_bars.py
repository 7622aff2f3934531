"""Acceptance by draft position: P(draft k accepted | draft k verified)."""

from __future__ import annotations

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

    def __init__(self, empty: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.empty = empty
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
        longest = max(len(shown) for _, shown in self.values)  # the value and the rounds behind it
        width = max(3, min(20, self.size.width - 8 - max(3, longest)))
        for k, (fraction, shown) in enumerate(self.values):
            if k:
                out.append("\n")
            out.append(f"{k + 1:>2} ▕", label)
            out.append(bar(fraction or 0.0, width), fill)
            out.append("▏", label)
            out.append(f" {shown:<3}", label)
        return out
