"""The crossover: the load beyond which speculation's tokens/s per request falls below plain decoding's.

A pure computation over numbers, for watch, the fleet and doctor alike: `crossover_of(speculative,
baseline)` takes speculation's tokens/s per request at each level of running requests (`LevelRate`,
with one standard error) and a `Baseline`, plain decoding's at the same levels, and says, level by
level, faster, slower or no difference beyond noise (kernel/verdict.judge: value ± 2 standard
errors, apart or not).

The crossover is the fewest running requests at which speculation is slower than plain beyond
noise; `paid_up_to` the most running requests below it at which speculation was faster beyond
noise. Only levels both sides have are compared: a baseline is never carried to another load,
since plain decoding's tokens/s per request falls with load too.

A baseline is one of
- measured (`MEASURED`): a plain server of the same model, read from its own /metrics as the
  speculating one is (`watch --baseline URL`, or the fleet instance `--baseline` names): its
  tokens/s per request per level, with the ratio estimator's standard error;
- from a sweep (`SWEEP`): the "off" side of a `specview sweep load --json` file (`--baseline FILE`),
  tokens/s per request at each concurrency, with the repeats' spread (command/baseline_file.py);
- given (`GIVEN`): numbers the user typed, a point each (spread 0, an assumption), at a level or
  at every level not given its own. watch's `--baseline-tps X` (the "slower" alert's threshold,
  plain decoding's tokens/s per request) is one number at every level: plain decoding slows with
  load too, so against a single-request number the crossover read is an early bound.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from specview.kernel.verdict import Estimate, Outcome, judge

MEASURED = "measured"
SWEEP = "sweep"  # measured by `specview sweep load` against a plain server (its "off" side)
GIVEN = "given"
MAX_GIVEN = 64  # given numbers one baseline holds

# the states of a Crossover
FOUND = "found"  # a level where speculation is slower beyond noise
NOT_REACHED = "not_reached"  # compared, never slower beyond noise
NO_COMMON_LEVEL = "no_common_level"  # the baseline has none of the levels watched
NO_BASELINE = "no_baseline"


@dataclass(frozen=True, slots=True)
class LevelRate:
    """Tokens/s per request at one level of running requests, with one standard error (None:
    unknown, e.g. one window; 0: nothing measured, a given number)."""

    running: int
    per_request: float
    spread: float | None

    @property
    def estimate(self) -> Estimate:
        return Estimate(self.per_request, self.spread)


@dataclass(frozen=True, slots=True)
class Baseline:
    """Plain decoding's tokens/s per request by level, and where it came from."""

    basis: str  # MEASURED, SWEEP or GIVEN
    source: str  # the plain server (URL or fleet instance), the sweep's file name, or "--baseline-tps"
    levels: tuple[LevelRate, ...] = ()
    every_level: float | None = None  # a given number without a level
    unusable: int = 0  # reads of the plain server that failed or gave no window to place (no gauge, a
    # count that broke its check, an impossible level): its levels hold what the others gave

    def at(self, running: int) -> LevelRate | None:
        found = next((r for r in self.levels if r.running == running), None)
        if found is None and self.every_level is not None:
            return LevelRate(running, self.every_level, 0.0)
        return found

    def to_dict(self) -> dict[str, Any]:
        return {"basis": self.basis, "source": self.source, "every_level": self.every_level, "unusable": self.unusable,
                "levels": [{"running": r.running, "tokens_per_s_per_request": round(r.per_request, 2),
                            "spread": None if r.spread is None else round(r.spread, 3)} for r in self.levels]}


@dataclass(frozen=True, slots=True)
class LevelComparison:
    """Speculation against plain at one level."""

    running: int
    speculative: Estimate
    plain: Estimate
    outcome: Outcome

    @property
    def vs_plain(self) -> float | None:
        """Speculation's tokens/s per request ÷ plain's (None: plain is 0)."""
        return self.speculative.value / self.plain.value if self.plain.value > 0 else None

    def to_dict(self) -> dict[str, Any]:
        ratio = self.vs_plain
        return {"running": self.running, "tokens_per_s_per_request": round(self.speculative.value, 2),
                "plain_tokens_per_s_per_request": round(self.plain.value, 2),
                "vs_plain": None if ratio is None else round(ratio, 3), "outcome": self.outcome.value}


@dataclass(frozen=True, slots=True)
class Crossover:
    """What the comparison found (see the module docstring)."""

    state: str
    baseline: Baseline | None
    running: int | None = None  # the crossover's level (FOUND only)
    paid_up_to: int | None = None
    compared: tuple[LevelComparison, ...] = field(default=())

    def at(self, running: int) -> LevelComparison | None:
        return next((c for c in self.compared if c.running == running), None)

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "running": self.running, "paid_up_to": self.paid_up_to,
                "basis": self.baseline.basis if self.baseline else None,
                "source": self.baseline.source if self.baseline else None,
                "rule": "value ± 2 standard errors apart (kernel/verdict.py)",
                "levels": [c.to_dict() for c in self.compared]}


def crossover_of(speculative: Sequence[LevelRate], baseline: Baseline | None) -> Crossover:
    """Speculation's tokens/s per request by level against the baseline's (the module docstring)."""
    if baseline is None:
        return Crossover(NO_BASELINE, None)
    compared: list[LevelComparison] = []
    for rate in sorted(speculative, key=lambda r: r.running):
        plain = baseline.at(rate.running)
        if plain is None or not (math.isfinite(rate.per_request) and math.isfinite(plain.per_request)):
            continue
        if plain.per_request <= 0:  # no token made in plain's windows at this level: no decoding measured there
            continue
        verdict = judge(rate.estimate, plain.estimate)
        compared.append(LevelComparison(rate.running, rate.estimate, plain.estimate, verdict.outcome))
    if not compared:
        return Crossover(NO_COMMON_LEVEL, baseline)
    below = next((c.running for c in compared if c.outcome is Outcome.BELOW), None)
    paid = [c.running for c in compared if c.outcome is Outcome.ABOVE and (below is None or c.running < below)]
    return Crossover(FOUND if below is not None else NOT_REACHED, baseline, below, max(paid, default=None),
                     tuple(compared))


def given_baseline(given: Sequence[tuple[float, int | None]]) -> Baseline | None:
    """`--baseline-tps` values (tokens/s per request, level or None for every level) as a Baseline
    (None: none given); a level given twice keeps the last."""
    if not given:
        return None
    levels: dict[int, LevelRate] = {}
    every: float | None = None
    for value, level in given[:MAX_GIVEN]:
        if level is None:
            every = value
        else:
            levels[level] = LevelRate(level, value, 0.0)
    return Baseline(GIVEN, "--baseline-tps", tuple(levels[k] for k in sorted(levels)), every)

