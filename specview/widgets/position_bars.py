"""Acceptance by draft position: P(draft k accepted | draft k verified)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from specview.widgets.bars import bar


class PositionBars(Widget):
    """One bar per draft position, with its value (— until a draft there was verified)."""

    DEFAULT_CSS = """
    PositionBars { height: auto; min-height: 1; }
    PositionBars > .bars--bar { color: $token-accepted; }
    PositionBars > .bars--label { color: $text-muted; }
    """
    COMPONENT_CLASSES = {"bars--bar", "bars--label"}

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.values: tuple[float | None, ...] = ()

    def set(self, values: Sequence[float | None]) -> None:
        rounded = tuple(None if v is None else round(v, 2) for v in values)
        if rounded == self.values:
            return
        relayout = len(rounded) != len(self.values)
        self.values = rounded
        self.refresh(layout=relayout)

    def render(self) -> Text:
        label = self.get_component_rich_style("bars--label")
        fill = self.get_component_rich_style("bars--bar")
        out = Text(no_wrap=True, overflow="ellipsis")
        if not self.values:
            out.append("no drafts yet", label)
            return out
        width = max(3, min(20, self.size.width - 12))
        for k, value in enumerate(self.values):
            if k:
                out.append("\n")
            out.append(f"{k + 1:>2} ▕", label)
            out.append(bar(value or 0.0, width), fill)
            out.append("▏", label)
            out.append(" —  " if value is None else f" {value:.2f}", label)
        return out
