"""Is one measured number above another beyond noise? The one rule every comparison uses.

`judge(a, b)` is the rule; everything that says one measured number beats another calls it
(`sweep load`'s verdict per concurrency, `sweep gamma`'s ★, the compare leaders' ▲, the speedup
gauge against plain decoding's 1×). See its docstring for the rule and why.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from specview.kernel.spread import Moments
from specview.texts.catalog import Phrase

Z = 2.0  # an interval is the value ± Z standard errors (why 2: judge's docstring)
RULE = Phrase("verdict.json.rule", z=f"{Z:g}")  # the rule, as `--json` states it beside each verdict


class Outcome(StrEnum):
    """What the rule says of a against b."""

    ABOVE = "above"  # a is higher beyond noise (faster, for a speed)
    BELOW = "below"  # a is lower beyond noise (slower)
    WITHIN = "within_noise"  # no difference beyond noise (or no spread to tell by)


@dataclass(frozen=True, slots=True)
class Estimate:
    """A measured number and its spread: one standard error (kernel/spread.py), None when unknown
    (a single sample), 0 for a number nothing was measured for (an assumption, a definition)."""

    value: float
    spread: float | None
    samples: int = 1  # how many repeats made it (1 for an estimate that carries its own spread)

    @classmethod
    def of(cls, samples: Sequence[float]) -> Estimate:
        """The mean of repeated samples, with sd / √n as its spread (None below two samples)."""
        if not samples:
            raise ValueError("an estimate needs at least one sample")
        moments = Moments()
        for x in samples:
            moments.add(x)
        return cls(statistics.fmean(samples), moments.standard_error, len(samples))

    @property
    def interval(self) -> tuple[float, float] | None:
        """value ± Z·spread, None when the spread is unknown."""
        if self.spread is None or not math.isfinite(self.spread):
            return None
        return self.value - Z * self.spread, self.value + Z * self.spread


@dataclass(frozen=True, slots=True)
class Verdict:
    """The rule's answer for a against b, with the intervals it used."""

    outcome: Outcome
    a: Estimate
    b: Estimate

    @property
    def beyond_noise(self) -> bool:
        return self.outcome is not Outcome.WITHIN

    def to_dict(self, *, rule: str) -> dict[str, object]:
        """For --json: the outcome, the rule in the words the caller chose (RULE in the JSON's
        language: `--json` is English) and the interval of each side (None: unknown spread)."""

        def side(e: Estimate) -> dict[str, object]:
            interval = e.interval
            return {"mean": e.value, "spread": e.spread, "samples": e.samples,
                    "interval": None if interval is None else list(interval)}

        return {"outcome": self.outcome.value, "rule": rule, "a": side(self.a), "b": side(self.b)}


def judge(a: Estimate, b: Estimate) -> Verdict:
    """a against b: above, below, or no difference beyond noise.

    The rule: each side's interval is its value ± Z = 2 standard errors (one standard error as
    kernel/spread.py forms it: sd/√n over repeated samples, or an estimate's own). a is above b
    when a's interval lies wholly above b's (a − 2·se_a > b + 2·se_b), below when wholly under;
    when the intervals touch or overlap — or either side's spread is unknown, as with a single
    sample — there is no difference beyond noise. A spread of 0 (nothing measured: an
    assumption, 1× by definition) is a point.

    Why ± 2 and apart: two equal spreads must then differ by 4·se, which is 2.83 standard
    errors of their difference; with three samples a side (the default --repeats) Student's t
    at 4 degrees of freedom puts that at p ≈ 0.05 two-sided, the usual 95 % test, and with more
    samples it is the stricter side of it. "Apart" is also what a reader checks by eye from the
    "± spread" printed beside each number.
    """
    ia, ib = a.interval, b.interval
    if ia is None or ib is None:
        return Verdict(Outcome.WITHIN, a, b)
    if ia[0] > ib[1]:
        return Verdict(Outcome.ABOVE, a, b)
    if ia[1] < ib[0]:
        return Verdict(Outcome.BELOW, a, b)
    return Verdict(Outcome.WITHIN, a, b)


def compare(a: Sequence[float], b: Sequence[float]) -> Verdict:
    """Two sets of measured samples (e.g. tok/s of repeated runs) by `judge`."""
    return judge(Estimate.of(a), Estimate.of(b))


def leader(estimates: Sequence[Estimate | None], higher_is_better: bool = True) -> int | None:
    """The index of the one estimate that beats every other beyond noise (`judge`), or None:
    fewer than two values, or the best is not apart from the next one."""
    present = [(e, i) for i, e in enumerate(estimates) if e is not None]
    if len(present) < 2:
        return None
    best, index = (max if higher_is_better else min)(present, key=lambda p: p[0].value)
    wins = Outcome.ABOVE if higher_is_better else Outcome.BELOW
    if all(judge(best, other).outcome is wins for other, i in present if i != index):
        return index
    return None
