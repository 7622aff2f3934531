"""The scale of a history chart, and its columns as block characters (no Textual here).

A chart states the range it is drawn on: the top and the bottom value sit beside its rows. A rate
is drawn on its own 0–1 scale (α 1.00 fills the column, α 0.50 half of it); any other quantity
(τ, γ, tokens/s) on 0 … its largest value, so a constant series sits at its value, at the top,
with the top saying what that value is — never at the bottom, as a scale from the series' own
minimum to its maximum would draw it (all points the minimum).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

STEPS = "▁▂▃▄▅▆▇█"  # one row in eighths; a value present is never drawn lower than the first
RATE = (0.0, 1.0)  # a rate's own scale


@dataclass(frozen=True, slots=True)
class Scale:
    """The range a chart is drawn on: `low` at the bottom of its rows, `high` at the top."""

    low: float
    high: float

    def fraction(self, value: float) -> float:
        """Where `value` sits between the bottom (0) and the top (1), clamped."""
        span = self.high - self.low
        if span <= 0:
            return 1.0 if value >= self.high else 0.0
        return max(0.0, min(1.0, (value - self.low) / span))


def scale_of(values: Sequence[float | None], fixed: tuple[float, float] | None = None) -> Scale:
    """`fixed` where the quantity has its own range (RATE), else 0 … the largest value (1 when
    there is none above 0: an empty or all-zero series sits at the bottom of a 0–1 scale)."""
    if fixed is not None:
        return Scale(*fixed)
    present = [v for v in values if v is not None and math.isfinite(v)]
    top = max(present, default=0.0)
    return Scale(min(0.0, *present) if present else 0.0, top if top > 0 else 1.0)


def column_rows(values: Sequence[float | None], scale: Scale, rows: int) -> list[str]:
    """The chart's rows, top first, one character per value (a space where a value is missing):
    each value's column is filled in eighths of `rows` cells to where it sits on `scale`."""
    levels = rows * len(STEPS)
    heights = [None if v is None or not math.isfinite(v) else max(1, round(scale.fraction(v) * levels))
               for v in values]
    out = []
    for row in range(rows):
        base = (rows - 1 - row) * len(STEPS)  # eighths below this row
        cells = []
        for h in heights:
            if h is None or h <= base:
                cells.append(" ")
            else:
                cells.append(STEPS[min(h - base, len(STEPS)) - 1])
        out.append("".join(cells))
    return out


def scale_label(value: float, *, rate: bool = False) -> str:
    """A range's end in at most five characters: a rate to two places (1.00, 0.00), else 3, 0,
    2.75, 42.5, 1.2k, 34k."""
    if rate:
        return f"{value:.2f}"
    if abs(value) >= 1000:
        shown = value / 1000
        return f"{shown:.1f}k" if abs(shown) < 10 else f"{shown:.0f}k"
    if value == int(value):
        return str(int(value))
    return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"
