"""Acceptance by context position: one column per bucket of position, then what it says."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

_LEVELS = "▁▂▃▄▅▆▇█"
_NONE = "·"  # a bucket whose rounds drafted nothing


def columns(values: Sequence[float | None]) -> str:
    """One block character per value in [0, 1] (its height), `·` where there is none."""
    out = []
    for v in values:
        if v is None:
            out.append(_NONE)
        else:
            out.append(_LEVELS[min(len(_LEVELS) - 1, max(0, int(v * (len(_LEVELS) - 1) + 0.5)))])
    return "".join(out)


class ContextChart(Widget):
    """Columns of α from the first bucket of position to the latest, a caption (the span and its
    α), and a mark line when acceptance decays with context; all texts are given."""

    DEFAULT_CSS = """
    ContextChart { height: auto; min-height: 1; }
    ContextChart > .context--column { color: $token-accepted; }
    ContextChart > .context--label { color: $text-muted; }
    ContextChart > .context--decay { color: $warning; text-style: bold; }
    """
    COMPONENT_CLASSES = {"context--column", "context--label", "context--decay"}

    def __init__(self, empty: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.empty = empty
        self.shown: tuple[tuple[float | None, ...], str, str, bool] = ((), "", "", False)

    def set(self, values: Sequence[float | None], caption: str, mark: str, decayed: bool) -> None:
        """Show these buckets' α (None: nothing verified there); redraws only on a change."""
        shown = (tuple(values), caption, mark, decayed)
        if shown == self.shown:
            return
        relayout = bool(shown[2]) != bool(self.shown[2]) or bool(shown[0]) != bool(self.shown[0])
        self.shown = shown
        self.refresh(layout=relayout)

    def render(self) -> Text:
        values, caption, mark, decayed = self.shown
        label = self.get_component_rich_style("context--label")
        out = Text(no_wrap=True, overflow="ellipsis")
        if not values:
            out.append(self.empty, label)
            return out
        out.append(" ▕", label)
        out.append(columns(values), self.get_component_rich_style("context--column"))
        out.append("▏", label)
        out.append("\n" + caption, label)
        if mark:
            out.append("\n" + mark, self.get_component_rich_style("context--decay") if decayed else label)
        return out
