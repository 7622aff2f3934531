"""Acceptance against load in words: one line per level of running requests (model/by_load.py),
α's bar drawn on its own 0–1 scale, each level against plain decoding where a baseline exists,
then the crossover with its basis (model/crossover.py), or what it needs."""

from __future__ import annotations

from specview.boundary.text import number, sanitize
from specview.features.watch.model.by_load import LoadTable
from specview.features.watch.model.crossover import FOUND, NO_BASELINE, NO_COMMON_LEVEL, Crossover
from specview.texts.catalog import fill, text
from specview.widgets.bars import bar

BAR = 10  # cells of α's bar (0 … 1)


def load_lines(table: LoadTable, lang: str) -> list[str]:
    """The heading, a line per level (fewest requests first), the windows not placed, the crossover."""
    lines = [text("watch.load.title", lang)]  # the gauge's name is in --json (`gauge`), not in a heading
    rows = table.rows()
    width = max((len(str(r.level)) for r in rows), default=1)
    crossover = table.crossover()
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
        against = crossover.at(row.level)
        if against is not None:
            lines.append(fill("watch.load.vs_plain", lang, indent=" " * width, plain=number(against.plain.value, ".1f"),
                              ratio=number(against.vs_plain, ".2f"),
                              outcome=text(f"watch.load.outcome_{against.outcome.value}", lang)))
    if not rows:
        lines.append(text("watch.load.none", lang))
    if table.unplaced:
        lines.append(fill("watch.load.unplaced", lang, n=table.unplaced))
    lines.extend(crossover_lines(crossover, [r.level for r in rows], lang))
    return lines


def crossover_lines(crossover: Crossover, levels: list[int], lang: str) -> list[str]:
    """The crossover in words, then its baseline's basis and source (or the way to give one)."""
    baseline = crossover.baseline
    if crossover.state == NO_BASELINE or baseline is None:
        return [text("watch.load.crossover", lang), text("watch.load.crossover_how", lang)]
    basis = fill("watch.load.crossover_basis", lang, basis=text(f"watch.load.basis_{baseline.basis}", lang),
                 source=sanitize(baseline.source, 200, one_line=True))
    if baseline.unusable:
        basis += fill("watch.load.baseline_unusable", lang, n=baseline.unusable)
    if crossover.state == NO_COMMON_LEVEL:
        said = fill("watch.load.crossover_no_common", lang, levels=", ".join(map(str, levels)) or "—")
    elif crossover.state == FOUND:
        paid = "" if crossover.paid_up_to is None else fill("watch.load.crossover_paid", lang,
                                                            running=crossover.paid_up_to)
        said = fill("watch.load.crossover_found", lang, running=crossover.running, paid=paid)
    else:
        said = fill("watch.load.crossover_not_reached", lang, running=crossover.compared[-1].running)
    return [said, basis]


def _end(interval: tuple[float, float] | None, k: int, fmt: str) -> str:
    """One end of an interval ("—" without one)."""
    return number(interval[k] if interval else None, fmt)
