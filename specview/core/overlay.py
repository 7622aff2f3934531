"""The theory overlay: what Leviathan's formulas expect from the measured α, γ and c."""

from __future__ import annotations

from dataclasses import dataclass

from specview.core.metrics import MetricsSnapshot
from specview.core.theory import best_gamma, expected_tau, speedup


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

    @property
    def speedup_shown(self) -> float | None:
        """The speedup to show: measured where the run has timings, else what theory expects."""
        return self.speedup_measured if self.speedup_measured is not None else self.speedup_theory


def overlay(snap: MetricsSnapshot) -> Overlay:
    """Theory for a snapshot: expected τ at the measured α and γ, the speedup c allows, best γ.

    speedup_measured is tokens/s × mean target-forward time, i.e. against plain decoding at
    one token per forward.
    """
    alpha = snap.acceptance_rate
    gamma = round(snap.mean_gamma) if snap.mean_gamma else None
    exp_tau = snap.expected_tau
    if exp_tau is None and alpha is not None and gamma:
        exp_tau = expected_tau(alpha, gamma)
    gap = None if exp_tau is None or snap.tau is None else snap.tau - exp_tau
    theory = best_g = best_s = None
    if alpha is not None and gamma and snap.draft_cost is not None:
        bounded = min(alpha, 0.999999)
        theory = speedup(bounded, gamma, snap.draft_cost)
        best_g, best_s = best_gamma(bounded, snap.draft_cost)
    measured = None
    if snap.tokens_per_second is not None and snap.mean_verify_s:
        measured = snap.tokens_per_second * snap.mean_verify_s
    return Overlay(snap.tau, exp_tau, gap, measured, theory, best_g, best_s)
