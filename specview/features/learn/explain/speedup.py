"""Screen 10 and `specview calc` · how much faster: τ and speedup from α, γ, c and v.

Leviathan et al. 2022: Eq. 1 (expected τ, i.i.d. acceptance), Theorem 3.8 (speedup when
verifying costs one forward), Corollary 3.9 (α > c ⇒ some γ helps, by at least (1+α)/(1+c)).
With a verify cost ratio v the speedup is τ / (γc + v).

Every number comes from kernel/theory.py (`expected_tau`, `speedup_of_tau`, `best_over`) or, with a preset
loaded, from the preset's own model (`Preset.tau_at`, `Preset.speedup_at`): the same functions
`specview calc`, `specview presets` and screens 7, 9 and 11 call, at the preset's exact α and c.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from specview.catalog.presets import Preset, get_preset, load_presets
from specview.kernel.theory import (
    MAX_GAMMA,
    alpha_for_tau,
    best_gamma,
    best_over,
    expected_tau,
    speedup,
    tau_from_positions,
)

DEFAULT_ALPHA = 0.8
DEFAULT_GAMMA = 4
DEFAULT_C = 0.05
DEFAULT_VERIFY_RATIO = 1.0
CURVE_GAMMAS = 16  # the speedup-vs-γ chart shows γ = 1…16
LENGTH_COSTS = (0.01, 0.2)  # "longer drafts pay when c is small": the best γ at a cheap and a dear draft


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
        "best_gamma_by_c": draft_length(alpha, verify_ratio),
    }
    if measured is not None:
        out["measured"] = measured_taus(measured)
    return out


def draft_length(alpha: float, verify_ratio: float = DEFAULT_VERIFY_RATIO) -> list[dict[str, Any]]:
    """The best γ at this α for a cheap and a dear draft step (`LENGTH_COSTS`): the article's point that
    longer drafts keep paying when c is small (an MTP head) and the best length is short otherwise."""
    out = []
    for c in LENGTH_COSTS:
        gamma, s = best_gamma(alpha, c, MAX_GAMMA, lambda _gamma: verify_ratio)
        out.append({"c": c, "best_gamma": gamma, "best_speedup": s})
    return out


def preset_speedup_numbers(preset_id: str, verify_ratio: float = DEFAULT_VERIFY_RATIO,
                           measured: Measured | None = None) -> dict[str, Any]:
    """Screen 10 with a preset loaded (`learn 10 --json --preset ID`): the preset's exact γ and c, the i.i.d. α
    whose Eq. 1 τ at its γ is the preset's τ, and τ, speedup, the curve over γ and the best γ from the preset's
    own model (`Preset.tau_at`, `Preset.speedup_at`: its per-position acceptance, its varying depth), as
    `specview presets` and screens 9 and 11 give them. A preset with one α at a fixed depth gives `specview calc`'s
    numbers at that α to the last digit."""
    controls = preset_controls(preset_id)
    p = _preset(preset_id)
    t = p.temperature

    def at(gamma: int) -> float:
        return p.speedup_at(t, gamma, verify_ratio=verify_ratio)

    alpha, c = controls["alpha"], p.c
    best_g, best_s = best_over(at, MAX_GAMMA)
    curve = [at(g) for g in range(1, CURVE_GAMMAS + 1)]
    even = break_even(alpha, c, verify_ratio) | {"gamma1_speedup": curve[0], "gamma1_helps": curve[0] > 1.0}
    out: dict[str, Any] = {
        "preset": p.id,
        "alpha": alpha,
        "gamma": p.gamma,
        "c": c,
        "verify_ratio": verify_ratio,
        "expected_tau": p.tau_at(t),
        "mean_drafted": p.mean_drafted(),
        "speedup": at(p.gamma),
        "best_gamma": best_g,
        "best_speedup": best_s,
        "curve_gamma": list(range(1, CURVE_GAMMAS + 1)),
        "curve_speedup": curve,
        "break_even": even,
        "best_gamma_by_c": draft_length(alpha, verify_ratio),
        "kinds": controls["kinds"],
    }
    if measured is not None:
        out["measured"] = measured_taus(measured)
    return out


def _preset(preset_id: str) -> Preset:
    presets = load_presets()
    return presets[preset_id] if preset_id in presets else get_preset(preset_id)



def preset_controls(preset_id: str) -> dict[str, Any]:
    """A preset as this screen's controls: its γ and c, its own τ (as `specview presets` gives it) and the
    i.i.d. α that gives that τ at its γ (Eq. 1 solved for α), each with where it comes from."""
    p = _preset(preset_id)
    tau = p.declared_tau()
    return {
        "id": p.id, "gamma": p.gamma, "c": p.c, "tau": tau, "alpha": alpha_for_tau(tau, p.gamma),
        "kinds": {"tau": "derived", "alpha": "derived", "gamma": p.field_source("gamma").kind,
                  "c": p.field_source("c").kind},
    }
