"""The per-request spread as a reader sees it: the histogram in text with its scale stated, the
outliers in words, and the JSON object (`per_request`) that `doctor --json` and `bench --suite
--json` print. The statistic is kernel/request_spread.py's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specview.kernel.request_spread import BINS, FENCE, LEVEL, MIN_GAP, MIN_REQUESTS, Outlier, RequestSpread
from specview.texts.catalog import Phrase, fill

BAR_CELLS = 20  # cells of the longest bar; the scale line says how many requests that is
MAX_NAMED = 5  # outliers named in words (the JSON has them all)
RULE = "binomial+tukey"
BASIS = "accepted ÷ drafted"


def chart(spread: RequestSpread) -> tuple[Phrase | str, ...]:
    """The histogram as text: a line stating the scale, then one bar per bin of acceptance."""
    bins = spread.histogram()
    top = max(bins) or 1
    lines: list[Phrase | str] = [Phrase("request_spread.chart_head", n=spread.count, cells=BAR_CELLS, top=top)]
    for k, count in enumerate(bins):
        bar = ("█" * round(count * BAR_CELLS / top)).ljust(BAR_CELLS)
        lines.append(f"{k / BINS:.1f}–{(k + 1) / BINS:.1f} ▕{bar}▏ {count}")
    return tuple(lines)


class Named:
    """The outliers in words, put in a language where they are shown (the catalog renders a field
    with `in_language`)."""

    def __init__(self, outliers: Sequence[Outlier]) -> None:
        self.outliers = tuple(outliers)

    def in_language(self, lang: str) -> str:
        shown = [fill("request_spread.named", lang, id=o.request.id, accepted=o.request.accepted,
                      drafted=o.request.drafted, reason=fill(f"request_spread.reason.{o.reason}", lang))
                 for o in self.outliers[:MAX_NAMED]]
        if len(self.outliers) > MAX_NAMED:
            shown.append(fill("request_spread.more", lang, n=len(self.outliers) - MAX_NAMED))
        return fill("request_spread.joiner", lang).join(shown)


def summary(spread: RequestSpread) -> Phrase:
    """One sentence: the outliers named, or the range with none far out (or too few to tell)."""
    rates = [r.accepted / r.drafted for r in spread.kept]
    if not rates:
        return Phrase("request_spread.summary_none")
    pooled = f"{spread.pooled() or 0.0:.2f}"
    outliers = spread.outliers()
    if outliers:
        return Phrase("request_spread.summary_outliers", k=len(outliers), n=spread.count, pooled=pooled,
                      named=Named(outliers))
    key = "request_spread.summary_few" if spread.count < MIN_REQUESTS else "request_spread.summary"
    return Phrase(key, n=spread.count, low=f"{min(rates):.2f}", high=f"{max(rates):.2f}", pooled=pooled,
                  most=MIN_REQUESTS)


def spread_json(spread: RequestSpread) -> dict[str, Any]:
    """The histogram's bins, the pooled rate and the outliers with their ids."""
    pooled = spread.pooled()
    return {
        "basis": BASIS,
        "count": spread.count,
        "no_drafts": spread.no_drafts,
        "more": spread.more,
        "pooled_acceptance_rate": None if pooled is None else round(pooled, 4),
        "bins": [{"low": k / BINS, "high": (k + 1) / BINS, "count": n} for k, n in enumerate(spread.histogram())],
        "rule": {"name": RULE, "level": LEVEL, "fence": FENCE, "min_gap": MIN_GAP, "min_requests": MIN_REQUESTS},
        "outliers": [{"id": o.request.id, "accepted": o.request.accepted, "drafted": o.request.drafted,
                      "acceptance_rate": round(o.request.accepted / o.request.drafted, 4),
                      "others_rate": round(o.expected, 4), "p_value": o.p_value, "reason": o.reason}
                     for o in spread.outliers()],
    }
