"""What every mark in the stream means, each sample drawn in the stream's own style.

The words come translated from the screen; the marks are the token view's own (token_layout's
MARKS and ROUND_SEPARATOR), so a new mark shows here by itself. It wraps to its width: at 80×24
the stream is 40 columns wide and the legend takes two lines.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from specview.kernel.events import TokenStatus
from specview.widgets.token_layout import MARKS, ROUND_SEPARATOR
from specview.widgets.token_styles import status_classes, status_rules

SEPARATOR = "separator"  # the round boundary's entry (not a token status)
INFERRED = "inferred"  # a style, not a status: italic


def sample(kind: str, word: str) -> str:
    """A legend word with the mark its kind carries in the stream."""
    if kind == SEPARATOR:
        return ROUND_SEPARATOR + word
    if kind == INFERRED:
        return word
    pre, post = MARKS.get(TokenStatus(kind), ("", ""))
    return pre + word + post


class Legend(Widget):
    """One sample per status, mark and style; `entries` are (kind, translated word)."""

    DEFAULT_CSS = f"""
    Legend {{ height: auto; padding: 0 1; color: $text-muted; }}
    {status_rules("Legend", "legend")}
    Legend > .legend--inferred {{ color: $foreground; text-style: italic; }}
    """
    COMPONENT_CLASSES = status_classes("legend") | {"legend--inferred"}

    def __init__(self, entries: Sequence[tuple[str, str]], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.entries = list(entries)

    def set_entries(self, entries: Sequence[tuple[str, str]]) -> None:
        """Other entries (a tree run's marks, once its first branch lost)."""
        self.entries = list(entries)
        self.refresh(layout=True)

    def render(self) -> Text:
        out = Text(justify="left")
        for i, (kind, word) in enumerate(self.entries):
            if i:
                out.append("  ")
            out.append(sample(kind, word), self.get_component_rich_style(f"legend--{kind}", partial=True))
        return out
