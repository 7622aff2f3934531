"""Two distributions over the same tokens, one row per token, told apart by glyph as well as colour.

`split` mode (target p, draft q): █ min(p, q) (the overlap the draft covers), ▒ max(0, p − q)
(the residual a rejection resamples from), ░ max(0, q − p) (where the draft proposes too often);
█+▒ is p and █+░ is q. `compare` mode (observed against expected): █ the observed share and
┃ where the expected share ends.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from specview.widgets.bars import bar, fit

SPLIT, COMPARE = "split", "compare"
LABEL_WIDTH = 8
BAR_MAX = 40


class DistributionBars(Widget):
    """Rows of `label ▕bar▏ numbers`; a selected row is marked ▶."""

    DEFAULT_CSS = """
    DistributionBars { height: auto; min-height: 1; }
    DistributionBars > .dist--label { color: $text-muted; }
    DistributionBars > .dist--selected { color: $text; text-style: bold; }
    DistributionBars > .dist--overlap { color: $token-accepted; }
    DistributionBars > .dist--residual { color: $token-corrected; }
    DistributionBars > .dist--excess { color: $token-rejected; }
    DistributionBars > .dist--expected { color: $text; text-style: bold; }
    DistributionBars > .dist--number { color: $text-muted; }
    """
    COMPONENT_CLASSES = {"dist--label", "dist--selected", "dist--overlap", "dist--residual", "dist--excess",
                         "dist--expected", "dist--number"}

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.labels: tuple[str, ...] = ()
        self.first: tuple[float, ...] = ()
        self.second: tuple[float, ...] = ()
        self.mode = SPLIT
        self.selected: int | None = None
        self.names = ("p", "q")

    def set(self, labels: Sequence[str], first: Sequence[float], second: Sequence[float], *, mode: str = SPLIT,
            selected: int | None = None, names: tuple[str, str] = ("p", "q")) -> None:
        """Show `first` against `second` (p and q, or observed and expected)."""
        if len(labels) != len(first) or len(first) != len(second):
            raise ValueError("labels and both distributions must have the same length")
        relayout = len(labels) != len(self.labels)
        self.labels, self.first, self.second = tuple(labels), tuple(first), tuple(second)
        self.mode, self.selected, self.names = mode, selected, names
        self.refresh(layout=relayout)

    def _scale(self) -> float:
        return max([*self.first, *self.second, 1e-12])

    def render(self) -> Text:
        style = self.get_component_rich_style
        out = Text(no_wrap=True, overflow="ellipsis")
        width = max(8, min(BAR_MAX, self.size.width - LABEL_WIDTH - 24))
        top = self._scale()
        for i, label in enumerate(self.labels):
            if i:
                out.append("\n")
            chosen = i == self.selected
            out.append(("▶ " if chosen else "  ") + fit(label, LABEL_WIDTH - 3) + " ",
                       style("dist--selected" if chosen else "dist--label"))
            out.append("▕", style("dist--label"))
            a, b = self.first[i], self.second[i]
            if self.mode == SPLIT:
                self._split_bar(out, a, b, top, width)
            else:
                self._compare_bar(out, a, b, top, width)
            out.append("▏", style("dist--label"))
            out.append(f" {self.names[0]} {a:.3f}  {self.names[1]} {b:.3f}", style("dist--number"))
        return out

    def _split_bar(self, out: Text, p: float, q: float, top: float, width: int) -> None:
        style = self.get_component_rich_style
        # Round the cumulative edges, not the parts, so the row never overflows: the three parts
        # add up to max(p, q) <= top.
        edges = [0, round(min(p, q) / top * width), round(p / top * width), round(max(p, q) / top * width)]
        cells = [max(0, b - a) for a, b in itertools.pairwise(edges)]
        for count, glyph, name in zip(cells, "█▒░", ("overlap", "residual", "excess"), strict=True):
            out.append(glyph * count, style(f"dist--{name}"))
        out.append(" " * max(0, width - sum(cells)))

    def _compare_bar(self, out: Text, observed: float, expected: float, top: float, width: int) -> None:
        style = self.get_component_rich_style
        filled = bar(observed / top, width)
        tick = min(width - 1, max(0, round(expected / top * width) - 1))
        for k, ch in enumerate(filled):
            if k == tick:
                out.append("┃", style("dist--expected"))
            else:
                out.append(ch, style("dist--overlap"))
