"""The compare screen's summary: the leader of each column (the gauges it shows: kernel/gauges.py).

A run leads a column only when its whole-run value beats every other run's beyond noise
(kernel/verdict.py: value ± 2 standard errors, intervals apart). The standard error of each
column comes from the gauge's own spread where it has one (speedup, v(γ)), else:

- tokens/s: the run's batch-means spread (kernel/spread.py's RateBatches);
- α: the binomial standard error √(α(1 − α) / verified) of accepted ÷ verified drafts;
- τ and theory τ: α's standard error carried through τ(α, γ) = (1 − α^{γ+1}) / (1 − α) at the
  run's mean γ (first order): exactly the spread of theory τ, and the spread the run's τ would
  have were acceptances independent.

A column without a spread (the draft cost c, the context drop) has no leader: nothing says its
differences are more than noise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from specview.kernel.gauges import SUMMARY, GaugeSpec, Reading, gauges
from specview.kernel.theory import expected_tau
from specview.kernel.verdict import Estimate, leader

STEP = 1e-4  # the step of τ(α)'s numerical derivative


def alpha_spread(r: Reading) -> float | None:
    """√(α(1 − α) / n) over the n verified drafts (None before any)."""
    alpha, verified = r.snap.acceptance_rate, r.snap.verified
    if alpha is None or verified <= 0:
        return None
    return math.sqrt(max(0.0, alpha * (1.0 - alpha)) / verified)


def tau_spread(r: Reading) -> float | None:
    """|dτ/dα| · se(α) at the run's mean γ (None without α, its spread or a γ)."""
    alpha, gamma, spread = r.snap.acceptance_rate, r.snap.mean_gamma, alpha_spread(r)
    if alpha is None or spread is None or not gamma or gamma <= 0:
        return None
    lo, hi = max(0.0, alpha - STEP), min(1.0, alpha + STEP)
    if hi <= lo:
        return None
    return abs(expected_tau(hi, gamma) - expected_tau(lo, gamma)) / (hi - lo) * spread


SPREADS: dict[str, Callable[[Reading], float | None]] = {
    "tokens_per_second": lambda r: r.snap.tokens_per_second_spread,
    "alpha": alpha_spread,
    "tau": tau_spread,
    "expected_tau": tau_spread,
}


def _estimate(spec: GaugeSpec, reading: Reading) -> Estimate | None:
    value = spec.value(reading, windowed=False)
    if value is None:
        return None
    spread_of = spec.spread or SPREADS.get(spec.key)
    return Estimate(value, None if spread_of is None else spread_of(reading))


def leaders(readings: Sequence[Reading]) -> dict[str, int | None]:
    """Index of the run that beats every other beyond noise for each summary gauge, by its
    whole-run value (None when fewer than two runs have a value, when the best is within the
    noise of another, when the spread is unknown, or when the gauge has no better side)."""
    out: dict[str, int | None] = {}
    for spec in gauges(SUMMARY):
        if spec.higher_is_better is None:
            out[spec.key] = None
            continue
        out[spec.key] = leader([_estimate(spec, r) for r in readings], spec.higher_is_better)
    return out
