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
    for row in rows:
        alpha, tau = row.alpha_interval, row.tau_interval
        lines.append(fill("watch.load.row", lang, running=f"{row.level:>{width}}", bar=bar(row.alpha or 0.0, BAR),
                          alpha=number(row.alpha, ".2f"), alpha_low=number(alpha[0] if alpha else None, ".2f"),
                          alpha_high=number(alpha[1] if alpha else None, ".2f"),
                          yield_=number(row.draft_yield, ".2f"), tau=number(row.tau, ".2f"),
                          tau_low=number(tau[0] if tau else None, ".2f"),
                          tau_high=number(tau[1] if tau else None, ".2f"),
                          tps=number(row.tokens_per_s, ".1f"), per_request=number(row.tokens_per_s_per_request, ".1f"),
                          windows=row.windows))
    if not rows:
        lines.append(text("watch.load.none", lang))
    if table.unplaced:
        lines.append(fill("watch.load.unplaced", lang, n=table.unplaced))
    lines.append(text("watch.load.crossover", lang))
    return lines
