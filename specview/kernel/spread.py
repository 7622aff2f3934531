"""How far a measured number may be off: one standard error, from the repeats that made it.

Every spread here is one standard error (1σ) of the number shown, so two numbers agree when
they differ by a few of their combined spreads, and a speedup's spread says how far its last
digits can be trusted. Three sources:

- **A calibrated cost** (the plain step, each k-token forward): each calibration times it
  `repeats` times and keeps the median (robust to one pre-empted repeat); the run's value is the
  mean of its calibrations' medians. Its standard error is the larger of
  sd(medians) / √C over the C calibrations (they are spread over the run, so a change in the
  machine's load shows here) and √(pooled within-calibration variance / N) over all N repeats
  (a floor while C is small: two medians that agree by luck would claim no spread at all).
- **The run's tokens/s**: the rounds in batches of BATCH_ROUNDS (batch means); the rate is the
  ratio estimator R = Σy / Σx (y a batch's tokens, x its seconds: exactly the run's tokens ÷
  elapsed) with standard error √(Σ(y − R·x)² / (n(n − 1))) / x̄ over the n batches.
- **A ratio or product** of independent estimates (speedup = run tokens/s × plain seconds per
  token; v(γ) = cost(γ+1) ÷ cost(1)): relative errors add in quadrature (first-order error
  propagation), δf/f = √((δa/a)² + (δb/b)²). A change in load slows the run and the plain step
  alike, which makes the ratio steadier than that; the quadrature sum is the cautious side.

An assumed cost (the simulator's) has no spread (0: nothing was measured); a given or paired
baseline's is unknown (None), so the speedup's is too.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

BATCH_ROUNDS = 8  # rounds per batch of the run's rate: a round's own luck (all drafts kept or none)
# averages out inside one, and the demo's 200 tokens with n-gram (≈ 45 rounds) still make five
MIN_BATCHES = 2  # batches (or calibrations) needed before there is a spread to speak of


@dataclass(slots=True)
class Moments:
    """Count, mean and sum of squared deviations of a stream of values (Welford: no cancellation)."""

    n: int = 0
    mean: float = 0.0
    squares: float = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.squares += delta * (x - self.mean)

    @property
    def variance(self) -> float | None:
        """The sample variance (n − 1), None below two values."""
        return self.squares / (self.n - 1) if self.n >= MIN_BATCHES else None

    @property
    def standard_error(self) -> float | None:
        """sd / √n: how far the mean may be off, None below two values."""
        var = self.variance
        return None if var is None else math.sqrt(var / self.n)


@dataclass(slots=True)
class CostSpread:
    """One calibrated cost over a run's calibrations: their medians and every repeat behind them."""

    spots: Moments = field(default_factory=Moments)  # each calibration's median
    within: float = 0.0  # Σ over calibrations of Σ (repeat − that calibration's mean)²
    within_dof: int = 0  # Σ (repeats − 1)
    repeats: int = 0

    def add(self, median: float, samples: Sequence[float]) -> None:
        self.spots.add(median)
        if len(samples) >= MIN_BATCHES:
            mean = statistics.fmean(samples)
            self.within += sum((s - mean) ** 2 for s in samples)
            self.within_dof += len(samples) - 1
        self.repeats += len(samples)

    @property
    def standard_error(self) -> float | None:
        """max(sd(medians) / √C, √(pooled within-calibration variance / N)); None with no repeats
        to judge by (a calibration recorded before samples were kept, a single repeat)."""
        between = self.spots.standard_error
        floor = math.sqrt(self.within / self.within_dof / self.repeats) if self.within_dof else None
        known = [v for v in (between, floor) if v is not None]
        return max(known) if known else None


@dataclass(frozen=True, slots=True)
class CalibrationSpread:
    """Standard errors (seconds) of a run's calibrated costs; None where the repeats do not tell."""

    plain_s: float | None
    verify_costs_s: tuple[float | None, ...] = ()
    calibrations: int = 0
    repeats: int = 0  # timings behind the plain step, over every calibration


class CalibrationSpreads:
    """Folds calibrations' repeats: the plain step's and each k-token forward's spread."""

    def __init__(self) -> None:
        self._plain = CostSpread()
        self._costs: list[CostSpread] = []

    def add(self, plain_s: float | None, plain_samples: Sequence[float], costs: Sequence[float],
            cost_samples: Sequence[Sequence[float]]) -> None:
        if plain_s is not None and plain_samples:
            self._plain.add(plain_s, plain_samples)
        for k, (cost, samples) in enumerate(zip(costs, cost_samples, strict=False)):
            if k == len(self._costs):
                self._costs.append(CostSpread())
            self._costs[k].add(cost, samples)

    def snapshot(self) -> CalibrationSpread | None:
        if not self._plain.repeats and not self._costs:
            return None
        return CalibrationSpread(self._plain.standard_error, tuple(c.standard_error for c in self._costs),
                                 self._plain.spots.n, self._plain.repeats)


@dataclass(slots=True)
class RatioSums:
    """Sums of (x, y) pairs (one per batch or window) for the ratio estimator R = Σy ÷ Σx and its
    standard error: the run's tokens/s over its batches, a load level's τ and tokens/s over its windows."""

    n: int = 0
    sx: float = 0.0
    sy: float = 0.0
    sxx: float = 0.0
    sxy: float = 0.0
    syy: float = 0.0

    def add(self, x: float, y: float) -> None:
        self.n += 1
        self.sx += x
        self.sy += y
        self.sxx += x * x
        self.sxy += x * y
        self.syy += y * y

    def plus(self, x: float, y: float) -> RatioSums:
        """These sums with one more pair (self unchanged)."""
        more = RatioSums(self.n, self.sx, self.sy, self.sxx, self.sxy, self.syy)
        more.add(x, y)
        return more

    def value(self) -> float | None:
        return self.sy / self.sx if self.sx > 0 else None

    def standard_error(self) -> float | None:
        """se of R over the n pairs: √(Σ(y − R·x)² / (n(n − 1))) / x̄ (None below MIN_BATCHES pairs or
        without x)."""
        if self.n < MIN_BATCHES or self.sx <= 0:
            return None
        rate = self.sy / self.sx
        residual = max(0.0, self.syy - 2 * rate * self.sxy + rate * rate * self.sxx)  # Σ (y − R·x)²
        return math.sqrt(residual / (self.n * (self.n - 1))) / (self.sx / self.n)


class RateBatches:
    """The run's tokens/s in batches of `size` rounds, for the ratio estimator's standard error."""

    def __init__(self, size: int = BATCH_ROUNDS) -> None:
        self.size = size
        self._sums = RatioSums()  # the closed batches: (seconds, tokens) each
        self._mark: float | None = None  # where the open batch began
        self._rounds = 0
        self._tokens = 0

    @property
    def batches(self) -> int:
        return self._sums.n

    def start(self, t: float) -> None:
        """The run's clock starts at `t` (the first round's start)."""
        self._mark = t

    def add(self, t_wall: float, tokens: int) -> None:
        """One round that ended at `t_wall` and counted `tokens` towards the run's rate."""
        self._rounds += 1
        self._tokens += tokens
        if self._rounds == self.size and self._mark is not None:
            self._sums.add(t_wall - self._mark, self._tokens)
            self._mark, self._rounds, self._tokens = t_wall, 0, 0

    def standard_error(self, t_last: float | None) -> float | None:
        """se of Σy / Σx over the closed batches and the open one (which ends at `t_last`)."""
        sums = self._sums
        if self._rounds and self._mark is not None and t_last is not None and t_last > self._mark:
            sums = sums.plus(t_last - self._mark, float(self._tokens))
        return sums.standard_error()


def relative(value: float | None, spread: float | None) -> float | None:
    """spread ÷ |value| (None when either is unknown or the value is 0)."""
    if value is None or spread is None or value == 0:
        return None
    return spread / abs(value)


def combined(value: float | None, *parts: tuple[float | None, float | None]) -> float | None:
    """The spread of `value` = a product or ratio of the (estimate, spread) `parts`, independent:
    |value| · √(Σ (spread ÷ estimate)²). None when any part's spread is unknown."""
    if value is None:
        return None
    total = 0.0
    for estimate, spread in parts:
        rel = relative(estimate, spread)
        if rel is None:
            return None
        total += rel * rel
    return abs(value) * math.sqrt(total)


def reciprocal_spread(seconds: float | None, spread_s: float | None) -> float | None:
    """The spread of 1 / seconds (a rate from a time per token): the same relative error."""
    if seconds is None or spread_s is None or seconds <= 0:
        return None
    return spread_s / (seconds * seconds)
