"""The theory overlay: what Leviathan's formulas expect from the measured α, γ, c and v.

Everything here spans the whole run (the gauges' window values sit beside it, labelled).

The measured speedup is spec tokens/s ÷ plain tokens/s, never assumed from the verify time:
plain decoding's time per token comes from the run's calibration (the local backend times a
plain step; the simulator assumes one; `--baseline-tps` or a paired plain run gives one) or
else from the run's own plain rounds (rounds that drafted nothing). Without any of these the
speedup is unknown ("no baseline") rather than guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

from specview.kernel.events import Basis, Calibration
from specview.kernel.metrics import MetricsSnapshot
from specview.kernel.theory import MAX_GAMMA, VerifyRatio, best_gamma, expected_tau

MIN_PLAIN_ROUNDS = 8  # timed plain rounds needed before they stand in for a baseline
PLAIN_ROUNDS = Basis.PLAIN_ROUNDS  # the basis when the run's own plain rounds are the baseline


@dataclass(frozen=True, slots=True)
class Overlay:
    """Measured values next to the theory they imply; None where an input is missing."""

    tau: float | None
    expected_tau: float | None
    tau_gap: float | None
    speedup_measured: float | None
    speedup_theory: float | None
    best_gamma: int | None
    best_speedup: float | None
    speedup_basis: Basis | None = None  # None: no baseline
    plain_tokens_per_second: float | None = None
    verify_ratio: float | None = None  # v(γ) = cost(γ+1) ÷ cost(1) at the run's γ (1 where assumed)
    gamma: int | None = None  # the γ of the drafting rounds (rounded mean)


def baseline(snap: MetricsSnapshot) -> tuple[float | None, Basis | None]:
    """Plain decoding's seconds per token for this run, and where it comes from (None: no baseline)."""
    cal = snap.calibration
    if cal is not None and cal.plain_s is not None:
        return cal.plain_s, cal.basis
    if snap.plain_rounds >= MIN_PLAIN_ROUNDS and snap.plain_round_s:
        return snap.plain_round_s, PLAIN_ROUNDS
    return None, None


def overlay(snap: MetricsSnapshot) -> Overlay:
    """Theory for a snapshot: expected τ at the measured α and γ, the speedup c and v allow, best γ."""
    alpha = snap.acceptance_rate
    drafting = [(g, n) for g, n in snap.gamma_counts if g > 0]
    gamma = round(sum(g * n for g, n in drafting) / sum(n for _, n in drafting)) if drafting else None
    exp_tau = snap.expected_tau
    if exp_tau is None and alpha is not None and gamma:
        exp_tau = expected_tau(alpha, gamma)
    gap = None if exp_tau is None or snap.tau is None else snap.tau - exp_tau
    ratio = _verify_ratios(snap.calibration)
    theory = best_g = best_s = v = None
    if ratio is not None and gamma:
        v = ratio(gamma)
    if alpha is not None and gamma and snap.draft_cost is not None and ratio is not None:
        bounded = min(alpha, 0.999999)
        theory = _mixture_speedup(bounded, snap.draft_cost, snap.gamma_counts, ratio)
        # best γ is searched only where v is known: up to the measured k, or everywhere when v ≡ 1
        best_g, best_s = best_gamma(bounded, snap.draft_cost, MAX_GAMMA, ratio)
    plain_s, basis = baseline(snap)
    measured = None if plain_s is None or snap.tokens_per_second is None else snap.tokens_per_second * plain_s
    return Overlay(
        tau=snap.tau,
        expected_tau=exp_tau,
        tau_gap=gap,
        speedup_measured=measured,
        speedup_theory=theory,
        best_gamma=best_g,
        best_speedup=best_s,
        speedup_basis=basis,
        plain_tokens_per_second=None if plain_s is None else 1.0 / plain_s,
        verify_ratio=v,
        gamma=gamma,
    )


def _verify_ratios(cal: Calibration | None) -> VerifyRatio | None:
    """v(γ) for the theory: measured costs where the run timed them; 1 where it is assumed or
    given; unknown (None) before a local run's first calibration."""
    if cal is not None and cal.basis is Basis.MEASURED:
        return cal.verify_ratio if cal.verify_costs_s else None
    return _one


def _one(gamma: int) -> float:
    return 1.0


def _mixture_speedup(
    alpha: float, c: float, gamma_counts: tuple[tuple[int, int], ...], ratio: VerifyRatio
) -> float | None:
    """E[tokens per round] ÷ E[round cost] over the run's γs: τ / (γc + v(γ)) when γ is fixed.

    Rounds that drafted nothing cost one 1-token forward and emit one token.
    """
    tokens = cost = 0.0
    for gamma, n in gamma_counts:
        v = 1.0 if gamma == 0 else ratio(gamma)
        if v is None:
            return None
        tokens += n * expected_tau(alpha, gamma)
        cost += n * (gamma * c + v)
    return tokens / cost if cost > 0 else None
