"""A prompt suite's runs folded per category (`specview bench --suite`), and two configurations' difference.

α is pooled over a category's prompts (Σ accepted ÷ Σ verified) with Wilson's interval
(kernel/stats.py). τ, tokens/s and the speedup are each prompt's own number, averaged over the
category's prompts; their interval is the mean ± Z standard errors across prompts (kernel/verdict.py's
Estimate), unknown (None) with a single prompt. So an interval says how much the category's prompts
disagree, not how precisely one prompt was timed. The difference of two configurations is B − A:
for α with Newcombe's square-and-add interval from the two Wilson intervals, for the means with the
standard errors added in quadrature, and each judged by the one rule (kernel/verdict.py's `judge`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from specview.kernel.stats import wilson
from specview.kernel.verdict import Estimate, Outcome, judge

Interval = tuple[float, float]


@dataclass(frozen=True, slots=True)
class PromptRun:
    """What one prompt's run measured (a `bench --json` stats object's numbers)."""

    category: str
    accepted: int
    verified: int
    tokens: int
    tau: float | None
    tokens_per_second: float | None
    speedup: float | None
    drafted: int | None = None  # draft tokens (the per-request spread's denominator: accepted ÷ drafted)


@dataclass(frozen=True, slots=True)
class CategoryFold:
    """One category's numbers over its prompts."""

    category: str
    prompts: int
    tokens: int
    accepted: int
    verified: int
    tau: Estimate | None
    tokens_per_second: Estimate | None
    speedup: Estimate | None

    @property
    def alpha(self) -> float | None:
        return self.accepted / self.verified if self.verified else None

    @property
    def alpha_interval(self) -> Interval | None:
        return wilson(self.accepted, self.verified)


def _estimate(values: Iterable[float | None]) -> Estimate | None:
    found = [v for v in values if v is not None and math.isfinite(v)]
    return Estimate.of(found) if found else None


def fold(runs: Sequence[PromptRun]) -> list[CategoryFold]:
    """Each category's fold, in the order the categories first appear."""
    order = list(dict.fromkeys(run.category for run in runs))
    out = []
    for category in order:
        mine = [run for run in runs if run.category == category]
        out.append(CategoryFold(
            category, len(mine), sum(r.tokens for r in mine), sum(r.accepted for r in mine),
            sum(r.verified for r in mine), _estimate(r.tau for r in mine),
            _estimate(r.tokens_per_second for r in mine), _estimate(r.speedup for r in mine)))
    return out


@dataclass(frozen=True, slots=True)
class Change:
    """B − A for one number: the difference, its interval (None: unknown) and the rule's outcome of B
    against A (within noise when either side's spread is unknown)."""

    value: float
    interval: Interval | None
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class CategoryChange:
    category: str
    alpha: Change | None
    tau: Change | None
    tokens_per_second: Change | None
    speedup: Change | None


def _alpha_change(a: CategoryFold, b: CategoryFold) -> Change | None:
    pa, pb, ia, ib = a.alpha, b.alpha, a.alpha_interval, b.alpha_interval
    if pa is None or pb is None or ia is None or ib is None:
        return None
    d = pb - pa
    lo = d - math.hypot(pb - ib[0], ia[1] - pa)
    hi = d + math.hypot(ib[1] - pb, pa - ia[0])
    outcome = Outcome.ABOVE if lo > 0 else Outcome.BELOW if hi < 0 else Outcome.WITHIN
    return Change(d, (lo, hi), outcome)


def _mean_change(a: Estimate | None, b: Estimate | None) -> Change | None:
    if a is None or b is None:
        return None
    spread = None if a.spread is None or b.spread is None else math.hypot(a.spread, b.spread)
    interval = Estimate(b.value - a.value, spread).interval
    return Change(b.value - a.value, interval, judge(b, a).outcome)


def change(a: CategoryFold, b: CategoryFold) -> CategoryChange:
    """B − A for one category."""
    return CategoryChange(a.category, _alpha_change(a, b), _mean_change(a.tau, b.tau),
                          _mean_change(a.tokens_per_second, b.tokens_per_second),
                          _mean_change(a.speedup, b.speedup))


def changes(a: Sequence[CategoryFold], b: Sequence[CategoryFold]) -> list[CategoryChange]:
    """B − A for every category both have, in A's order."""
    found = {fold.category: fold for fold in b}
    return [change(fa, found[fa.category]) for fa in a if fa.category in found]
