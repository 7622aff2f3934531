"""Was the baseline measured while the machine was taken? Numbers no forward can give, said instead of shown.

A calibration taken while other work held the cores times that work as much as the model, and
the speedup divided by it reads whatever the contention made of it (19× for an n-gram run whose
tok/s, measured back to back with plain decoding's, gave 1.77×). Some of what it produces is
impossible, and that is what `contended` looks for, each by kernel/verdict.py's one rule so that
noise alone never trips it:

- **a speedup above τ**: speedup = τ / (γc + v(γ+1)) with c ≥ 0 and v ≥ 1 never exceeds τ, the
  tokens a round emits (a speedup whose spread is unknown may not exceed τ at all);
- **v(k) below 1**: a k-token forward does the 1-token forward's work and more, so one that
  times cheaper (by more than TOLERANCE, beyond noise) had its 1-token forward slowed;
- **plain steps that disagree**: the same plain step timed DISAGREE times slower in one timing
  than in another — within one calibration (the median, so most repeats, that far above the
  fastest) or between two (apart beyond noise too): a step does not change its cost, the
  machine did.

The machine's load while the calibration ran (kernel/machine_load.py) is the evidence the reason
cites, never a signal on its own: a host that is busy but steady slows the run and its baseline
alike, and its speedup still means what it says.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from specview.kernel.calibration import Calibration
from specview.kernel.machine_load import Load, LoadKind
from specview.kernel.verdict import Estimate, Outcome, judge
from specview.texts.catalog import Phrase

TOLERANCE = 0.05  # v(k) must read below 0.95, beyond noise: kernels for 1 and k tokens may differ a little
DISAGREE = 3.0  # a plain step timed this many times slower than elsewhere was slowed (load drifts move it ±30 %)
MIN_REPEATS = 3  # repeats before a calibration's own timings can disagree (the median must stand for most)


def contended(*, speedup: Estimate | None = None, tau: float | None = None,
              verify_costs: Sequence[Estimate] = (), plain_repeats: Sequence[Sequence[float]] = (),
              load: Load | None = None) -> Phrase | None:
    """Why these numbers cannot have been measured on a free machine (a `busy.<signal>` Phrase
    citing `load`), or None when nothing says so.

    `speedup` and `tau`: the run's measured speedup and its τ; `verify_costs[k-1]`: the k-token
    forward's cost; `plain_repeats`: the plain step's timings, one sequence per calibration."""
    found = _above_tau(speedup, tau) or _verify_below_one(verify_costs) or _plain_disagrees(plain_repeats)
    if found is None:
        return None
    signal, fields = found
    return Phrase(f"busy.{signal}", load=load_phrase(load), **fields)


def calibration_contended(cal: Calibration) -> Phrase | None:
    """`contended` on one calibration's own repeats (what `--gamma auto` asks of each fresh one)."""
    costs = [Estimate.of(samples) for samples in cal.verify_samples_s if samples]
    plain = [cal.plain_samples_s] if cal.plain_samples_s else []
    return contended(verify_costs=costs, plain_repeats=plain, load=cal.load)


def signal_of(reason: Phrase) -> str:
    """The signal a reason names (`above_tau`, `verify_below_one`, `plain_disagrees`): `bench --json`'s word."""
    return reason.key.removeprefix("busy.")


def load_phrase(load: Load | None) -> Phrase:
    """"2 other runnable processes on 2 cores", "load average 3.1 on 2 cores" or "load not read"."""
    if load is None:
        return Phrase("busy.load.unknown")
    if load.kind is LoadKind.LOADAVG:
        return Phrase("busy.load.loadavg", load=f"{load.others:.1f}", cores=load.cores)
    return Phrase("busy.load.runnable", others=f"{load.others:.0f}", cores=load.cores)


Found = tuple[str, dict[str, object]] | None


def _above_tau(speedup: Estimate | None, tau: float | None) -> Found:
    if speedup is None or tau is None or not speedup.value > tau:
        return None
    if speedup.spread is not None and judge(speedup, Estimate(tau, 0.0)).outcome is not Outcome.ABOVE:
        return None  # above τ by less than its noise: consistent with a speedup of τ or below
    return "above_tau", {"speedup": f"{speedup.value:.2f}", "tau": f"{tau:.2f}"}


def _verify_below_one(costs: Sequence[Estimate]) -> Found:
    if not costs:
        return None
    one = costs[0]
    for k, cost in enumerate(costs[1:], start=2):
        ratio = cost.value / one.value
        if ratio < 1.0 - TOLERANCE and judge(cost, one).outcome is Outcome.BELOW:
            return "verify_below_one", {"k": k, "v": f"{ratio:.2f}"}
    return None


def _plain_disagrees(repeats: Sequence[Sequence[float]]) -> Found:
    timed = [tuple(samples) for samples in repeats if samples]
    for samples in timed:  # within one calibration: most repeats far above its fastest
        if len(samples) >= MIN_REPEATS and statistics.median(samples) >= DISAGREE * min(samples):
            return "plain_disagrees", _ms(statistics.median(samples), min(samples))
    estimates = [Estimate.of(samples) for samples in timed]
    if len(estimates) < 2:
        return None
    slow = max(estimates, key=lambda e: e.value)
    fast = min(estimates, key=lambda e: e.value)
    if slow.value >= DISAGREE * fast.value and judge(slow, fast).outcome is Outcome.ABOVE:
        return "plain_disagrees", _ms(slow.value, fast.value)
    return None


def _ms(slow_s: float, fast_s: float) -> dict[str, object]:
    return {"slow": f"{1000 * slow_s:.1f}", "fast": f"{1000 * fast_s:.1f}"}
