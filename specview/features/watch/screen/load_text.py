"""Acceptance against load in words: one line per level of running requests (model/by_load.py),
α's bar drawn on its own 0–1 scale, then what the crossover needs."""

from __future__ import annotations

from specview.boundary.text import number
from specview.features.watch.model.by_load import LoadTable
from specview.texts.catalog import fill, text
from specview.widgets.bars import bar

BAR = 10  # cells of α's bar (0 … 1)


def load_lines(table: LoadTable, lang: str) -> list[str]:
    """The heading, a line per level (fewest requests first), the windows not placed, the crossover."""
    lines = [text("watch.load.title", lang)]  # the gauge's name is in --json (`gauge`), not in a heading
    rows = table.rows()
    width = max((len(str(r.level)) for r in rows), default=1)
    for row in rows:  # two lines a level: what was accepted, then the rates
        alpha, tau, tps = row.alpha_interval, row.tau_interval, row.tokens_per_s_interval
        lines.append(fill("watch.load.row", lang, running=f"{row.level:>{width}}", bar=bar(row.alpha or 0.0, BAR),
                          alpha=number(row.alpha, ".2f"), alpha_low=_end(alpha, 0, ".2f"),
                          alpha_high=_end(alpha, 1, ".2f"), yield_=number(row.draft_yield, ".2f"),
                          windows=row.windows))
        lines.append(fill("watch.load.row_rates", lang, indent=" " * width, tau=number(row.tau, ".2f"),
                          tau_low=_end(tau, 0, ".2f"), tau_high=_end(tau, 1, ".2f"),
                          tps=number(row.tokens_per_s, ".1f"), tps_low=_end(tps, 0, ".1f"),
                          tps_high=_end(tps, 1, ".1f"), per_request=number(row.tokens_per_s_per_request, ".1f")))
    if not rows:
        lines.append(text("watch.load.none", lang))
    if table.unplaced:
        lines.append(fill("watch.load.unplaced", lang, n=table.unplaced))
    lines.append(text("watch.load.crossover", lang))
    return lines


def _end(interval: tuple[float, float] | None, k: int, fmt: str) -> str:
    """One end of an interval ("—" without one)."""
    return number(interval[k] if interval else None, fmt)
