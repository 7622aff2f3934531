"""Chi-square goodness of fit with its p-value, without SciPy (a runtime dependency we avoid)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

_EPS = 1e-15
_TINY = 1e-300


@dataclass(frozen=True, slots=True)
class ChiSquare:
    """Pearson's statistic, its degrees of freedom and the p-value P(χ² ≥ statistic)."""

    statistic: float
    dof: int
    p_value: float

    def passes(self, level: float = 0.001) -> bool:
        """True when the counts are consistent with the expected law at this significance level."""
        return self.p_value >= level


def chi_square(observed: Sequence[int], probabilities: Sequence[float]) -> ChiSquare:
    """Goodness of fit of counts to a law; a count where the law has no mass fails outright."""
    if len(observed) != len(probabilities):
        raise ValueError("observed and probabilities differ in length")
    n = sum(observed)
    if n <= 0:
        raise ValueError("no observations")
    stat, cells = 0.0, 0
    for count, prob in zip(observed, probabilities, strict=True):
        if prob <= 0:
            if count:
                return ChiSquare(math.inf, max(cells - 1, 1), 0.0)
            continue
        expected = n * prob
        stat += (count - expected) ** 2 / expected
        cells += 1
    dof = max(cells - 1, 1)
    return ChiSquare(stat, dof, chi_square_sf(stat, dof))


def chi_square_sf(statistic: float, dof: int) -> float:
    """P(χ²_dof ≥ statistic): the regularised upper incomplete gamma Q(dof/2, statistic/2)."""
    if dof <= 0:
        raise ValueError("dof must be positive")
    if math.isinf(statistic):
        return 0.0
    if dof == 1:  # Q(1/2, x/2) in closed form (the fleet tests a hundred two-cell counts a poll)
        return math.erfc(math.sqrt(max(statistic, 0.0) / 2.0))
    return _gamma_q(dof / 2.0, max(statistic, 0.0) / 2.0)


def _gamma_q(a: float, x: float) -> float:
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:  # the series for P converges fast here
        term = total = 1.0 / a
        k = a
        while abs(term) > abs(total) * _EPS:
            k += 1.0
            term *= x / k
            total += term
        return max(0.0, 1.0 - total * math.exp(log_front))
    # Lentz's continued fraction for Q
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    i = 1
    while True:
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS or i > 10_000:
            break
        i += 1
    return min(1.0, h * math.exp(log_front))


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float] | None:
    """Wilson's score interval for a binomial proportion (None without trials).

    Chosen over the normal interval because it stays inside [0, 1] and behaves at 0 and n
    successes, where a bucket of a run that accepts everything lands.
    """
    if trials <= 0:
        return None
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)
