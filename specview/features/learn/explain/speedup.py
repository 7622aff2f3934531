"""Screen 10 and `specview calc` · how much faster: τ and speedup from α, γ, c and v.

Leviathan et al. 2022: Eq. 1 (expected τ, i.i.d. acceptance), Theorem 3.8 (speedup when
verifying costs one forward), Corollary 3.9 (α > c ⇒ some γ helps, by at least (1+α)/(1+c)).
With a verify cost ratio v the speedup is τ / (γc + v).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from specview.catalog.presets import get_preset, load_presets
from specview.kernel.theory import MAX_GAMMA, alpha_for_tau, best_gamma, expected_tau, speedup, tau_from_positions

DEFAULT_ALPHA = 0.8
DEFAULT_GAMMA = 4
DEFAULT_C = 0.05
DEFAULT_VERIFY_RATIO = 1.0
CURVE_GAMMAS = 16  # the speedup-vs-γ chart shows γ = 1…16


@dataclass(frozen=True, slots=True)
class Measured:
    """A run's measured values, for the `f` key (None where the run could not measure one)."""

    alpha: float | None
    gamma: int | None
    c: float | None
    tau: float | None
    per_position: tuple[float | None, ...] = ()
    verify_ratio: float | None = None


def break_even(alpha: float, c: float, verify_ratio: float = 1.0) -> dict[str, Any]:
    """Corollary 3.9 (v = 1): α > c ⇒ a γ with speedup ≥ (1+α)/(1+c); and γ = 1 helps iff 1+α > c+v."""
    return {
        "alpha_beats_c": alpha > c,
        "lower_bound": (1.0 + alpha) / (1.0 + c) if alpha > c else None,
        "gamma1_speedup": speedup(alpha, 1, c, verify_ratio),
        "gamma1_helps": 1.0 + alpha > c + verify_ratio,
    }


def measured_taus(m: Measured) -> dict[str, float | None]:
    """Three τ for a run: i.i.d. theory from its α, theory from its per-position acceptance, measured."""
    iid = expected_tau(m.alpha, m.gamma) if m.alpha is not None and m.gamma else None
    known = [a for a in m.per_position if a is not None]
    positions = tau_from_positions(known) if known and len(known) == len(m.per_position) else None
    return {"tau_iid": iid, "tau_positions": positions, "tau_measured": m.tau}


def speedup_numbers(
    alpha: float = DEFAULT_ALPHA, gamma: int = DEFAULT_GAMMA, c: float = DEFAULT_C,
    verify_ratio: float = DEFAULT_VERIFY_RATIO, measured: Measured | None = None,
) -> dict[str, Any]:
    """τ, speedup, the speedup curve over γ with the best γ, break-even, and a run's three τ."""
    if not 1 <= gamma <= MAX_GAMMA:
        raise ValueError(f"gamma must be in [1, {MAX_GAMMA}], got {gamma}")
    best_g, best_s = best_gamma(alpha, c, MAX_GAMMA, lambda _gamma: verify_ratio)  # v held fixed across γ
    out: dict[str, Any] = {
        "alpha": alpha,
        "gamma": gamma,
        "c": c,
        "verify_ratio": verify_ratio,
        "expected_tau": expected_tau(alpha, gamma),
        "speedup": speedup(alpha, gamma, c, verify_ratio),
        "best_gamma": best_g,
        "best_speedup": best_s,
        "curve_gamma": list(range(1, CURVE_GAMMAS + 1)),
        "curve_speedup": [speedup(alpha, g, c, verify_ratio) for g in range(1, CURVE_GAMMAS + 1)],
        "break_even": break_even(alpha, c, verify_ratio),
    }
    if measured is not None:
        out["measured"] = measured_taus(measured)
    return out



def preset_controls(preset_id: str) -> dict[str, Any]:
    """A preset as this screen's controls: its γ and c, its own τ (as `specview presets` gives it) and the
    i.i.d. α that gives that τ at its γ (Eq. 1 solved for α), each with where it comes from."""
    presets = load_presets()
    p = presets[preset_id] if preset_id in presets else get_preset(preset_id)
    tau = p.declared_tau()
    return {
        "id": p.id, "gamma": p.gamma, "c": p.c, "tau": tau, "alpha": alpha_for_tau(tau, p.gamma),
        "kinds": {"tau": "derived", "alpha": "derived", "gamma": p.field_source("gamma").kind,
                  "c": p.field_source("c").kind},
    }
