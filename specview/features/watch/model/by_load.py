"""Acceptance against load: α, yield, τ and tokens/s for each number of requests running.

Each sample (one poll's window, model/__init__.py) is placed at a level of load: the running
requests the engine's gauge said (vLLM `vllm:num_requests_running`, llama-server
`llamacpp:requests_processing`, SGLang `sglang:num_running_reqs`), the larger of the readings at
the window's two ends — a window in which the load changed counts at its higher level, where its
requests ended — and at least 1 when the counters moved (a request ran); a window in which
nothing moved counts at the level it ends with (the load left before it did). Idle windows
(nothing running, nothing counted) are not placed; neither is one without the gauge, one whose
counts broke an invariant (no number built on a count that failed its check), or one at a
level beyond MAX_LEVEL (a gauge is a number from outside: counted in `unplaced`).

Per level, summed over its windows: drafts, drafted and accepted tokens, verified positions (α's
denominator, as each sample reads it), generated tokens and seconds. Then
- α = accepted ÷ verified and yield = accepted ÷ drafted, each with Wilson's 95 % interval
  (kernel/stats.py); verify steps of one request are not independent draws, so the interval is
  the binomial noise alone, a floor;
- τ = 1 + accepted ÷ drafts and tokens/s = tokens ÷ seconds, each with the ratio estimator's
  95 % interval over the level's windows as batches (kernel/spread.py: how much the windows
  differ, which includes the dependence inside a request); none below two windows;
- tokens/s per request = tokens/s ÷ the level.

llama-server adds a request's speculative counters to /metrics only when it ends (a long
request is one step), so its levels fill as requests end; its tokens/s counts the tokens in
flight too (/slots), so it does not wait.

The crossover — the load beyond which tokens/s per request falls below a plain server's — needs
a plain baseline at the same levels (model/crossover.py): `baseline` is set by the table's owner
(a plain server's own LoadTable through `as_baseline`, or numbers the user gave), and `crossover()`
compares. Without one, `baseline` and `crossover` are None in the JSON and the table says
"no baseline" with the way to give one.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

from specview.features.watch.model import COUNTS, POSITIONS, WatchSample, verified_drafts
from specview.features.watch.model.crossover import MEASURED, Baseline, Crossover, LevelRate, crossover_of
from specview.kernel.spread import RatioSums
from specview.kernel.stats import wilson

MAX_LEVELS = 64  # levels kept; a sample at a new level beyond them is counted, not kept
MAX_LEVEL = 100_000  # running requests no server has: a gauge above it is not a level
Z = 1.96  # the intervals' 95 %


def _interval(sums: RatioSums | None) -> tuple[float, float] | None:
    """R = Σy ÷ Σx over a level's windows, ± Z standard errors (None below two windows)."""
    value = sums.value() if sums is not None else None
    se = sums.standard_error() if sums is not None else None
    return None if value is None or se is None else (max(0.0, value - Z * se), value + Z * se)


@dataclass(slots=True)
class LoadLevel:
    """What the windows at one level of load added up to."""

    level: int
    windows: int = 0
    seconds: float = 0.0
    drafts: int = 0
    drafted: int = 0
    accepted: int = 0
    verified: int = 0
    tokens: int = 0
    counts_basis: bool = False  # some window's α rested on the counts (a lower bound)
    _tau: RatioSums | None = None
    _rate: RatioSums | None = None

    def add(self, sample: WatchSample, verified: int) -> None:
        self.windows += 1
        self.seconds += sample.dt
        self.drafts += sample.drafts
        self.drafted += sample.draft_tokens
        self.accepted += sample.accepted
        self.verified += verified
        self.tokens += sample.tokens or 0
        self.counts_basis |= sample.alpha_basis == COUNTS
        if sample.drafts > 0:
            self._tau = self._tau or RatioSums()
            self._tau.add(sample.drafts, sample.accepted)
        if sample.tokens is not None and sample.dt > 0:
            self._rate = self._rate or RatioSums()
            self._rate.add(sample.dt, sample.tokens)

    @property
    def alpha(self) -> float | None:
        return self.accepted / self.verified if self.verified > 0 else None

    @property
    def alpha_interval(self) -> tuple[float, float] | None:
        return wilson(self.accepted, self.verified, Z)

    @property
    def draft_yield(self) -> float | None:
        return self.accepted / self.drafted if self.drafted > 0 else None

    @property
    def yield_interval(self) -> tuple[float, float] | None:
        return wilson(self.accepted, self.drafted, Z)

    @property
    def tau(self) -> float | None:
        return 1.0 + self.accepted / self.drafts if self.drafts > 0 else None

    @property
    def tau_interval(self) -> tuple[float, float] | None:
        found = _interval(self._tau)
        return None if found is None else (1.0 + found[0], 1.0 + found[1])

    @property
    def tokens_per_s(self) -> float | None:
        return self._rate.value() if self._rate is not None else None

    @property
    def tokens_per_s_interval(self) -> tuple[float, float] | None:
        return _interval(self._rate)

    @property
    def tokens_per_s_per_request(self) -> float | None:
        rate = self.tokens_per_s
        return None if rate is None or self.level <= 0 else rate / self.level

    def per_request_rate(self) -> LevelRate | None:
        """Tokens/s per request with one standard error (None: no tokens/s at this level)."""
        rate = self.tokens_per_s_per_request
        se = self._rate.standard_error() if self._rate is not None else None
        return None if rate is None else LevelRate(self.level, rate, None if se is None else se / self.level)

    def to_dict(self) -> dict[str, Any]:
        return {
            "running": self.level, "windows": self.windows, "seconds": round(self.seconds, 3),
            "drafts": self.drafts, "drafted": self.drafted, "accepted": self.accepted,
            "verified": self.verified, "tokens": self.tokens,
            "alpha": _r(self.alpha), "alpha_interval": _pair(self.alpha_interval),
            "alpha_basis": None if self.alpha is None else COUNTS if self.counts_basis else POSITIONS,
            "yield": _r(self.draft_yield), "yield_interval": _pair(self.yield_interval),
            "tau": _r(self.tau), "tau_interval": _pair(self.tau_interval),
            "tokens_per_s": _r(self.tokens_per_s, 2), "tokens_per_s_interval": _pair(self.tokens_per_s_interval, 2),
            "tokens_per_s_per_request": _r(self.tokens_per_s_per_request, 2),
        }


class LoadTable:
    """Samples in, one row per level of running requests out (see the module docstring)."""

    def __init__(self, gauge: str | None = None) -> None:
        self.gauge = gauge  # the engine's running-requests gauge, as the output names it
        self.levels: dict[int, LoadLevel] = {}
        self.unplaced = 0  # windows not placed: no gauge, a broken count, a level beyond the bounds
        self._before: float | None = None  # the gauge at the end of the previous window
        self.baseline: Baseline | None = None  # plain decoding's tokens/s per request (set by the owner)

    def add(self, sample: WatchSample) -> None:
        """Place one window (in the order they came: its start is the window before's end)."""
        before, self._before = self._before, _finite(sample.active)
        if sample.reset:
            before = None  # a restarted server: what ran before is gone
        level = self.level_of(sample, before)
        if level is None:
            return
        if level == 0:  # idle: nothing ran, nothing counted
            return
        row = self.levels.get(level)
        if row is None:
            if len(self.levels) >= MAX_LEVELS:
                self.unplaced += 1
                return
            row = self.levels[level] = LoadLevel(level)
        row.add(sample, _verified(sample))

    def level_of(self, sample: WatchSample, before: float | None) -> int | None:
        """The window's level (0: idle), or None where it is not placed (counted)."""
        now = _finite(sample.active)
        if now is None or sample.violations or now > MAX_LEVEL or (before is not None and before > MAX_LEVEL):
            self.unplaced += 1
            return None
        if not (sample.drafts > 0 or sample.tokens):  # nothing moved: the load it ends with (0: idle)
            return round(now)
        return max(round(now), round(before) if before is not None else 0, 1)

    def copy(self) -> LoadTable:
        """A copy that later samples do not change (a fleet row's, read on another thread)."""
        return copy.deepcopy(self)

    def rows(self) -> list[LoadLevel]:
        """The levels seen, fewest requests first."""
        return [self.levels[k] for k in sorted(self.levels)]

    def rates(self) -> list[LevelRate]:
        """Tokens/s per request at each level that has it, fewest requests first."""
        return [rate for row in self.rows() if (rate := row.per_request_rate()) is not None]

    def as_baseline(self, source: str, failed: int = 0) -> Baseline:
        """This table, a plain server's, as the measured baseline of another; its windows not
        placed and the `failed` reads that gave none are the baseline's unusable reads."""
        return Baseline(MEASURED, source, tuple(self.rates()), unusable=self.unplaced + failed)

    def crossover(self) -> Crossover:
        """The levels against `baseline` (state "no_baseline" without one)."""
        return crossover_of(self.rates(), self.baseline)

    def to_dict(self) -> dict[str, Any]:
        """`by_load` in watch's and the fleet's JSON."""
        return {"gauge": self.gauge, "levels": [row.to_dict() for row in self.rows()], "unplaced": self.unplaced,
                "interval": "95%", "baseline": None if self.baseline is None else self.baseline.to_dict(),
                "crossover": None if self.baseline is None else self.crossover().to_dict()}


def _verified(sample: WatchSample) -> int:
    """The positions the sample's α rests on (its denominator), as the sample reads them."""
    if sample.verified is not None:
        return sample.verified
    found = verified_drafts(sample.drafts, sample.draft_tokens, sample.accepted, sample.per_position,
                            beyond=sample.positions_beyond)
    return found[0] if found is not None else 0


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) and value >= 0 else None


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _pair(pair: tuple[float, float] | None, digits: int = 4) -> list[float] | None:
    return None if pair is None else [round(pair[0], digits), round(pair[1], digits)]
