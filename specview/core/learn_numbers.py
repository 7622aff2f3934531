"""The numbers each Learn screen shows at its default controls (`specview learn N --json`)."""

from __future__ import annotations

from typing import Any

from specview.core.theory import expected_tau, speedup

DEFAULT_ALPHA = 0.8
DEFAULT_GAMMA = 4
DEFAULT_C = 0.05


def speedup_numbers(alpha: float = DEFAULT_ALPHA, gamma: int = DEFAULT_GAMMA, c: float = DEFAULT_C) -> dict[str, Any]:
    """Screen 10: expected τ and the speedup τ / (γc + 1) (Leviathan Eq. 1, Thm 3.8)."""
    return {
        "alpha": alpha,
        "gamma": gamma,
        "c": c,
        "expected_tau": expected_tau(alpha, gamma),
        "speedup": speedup(alpha, gamma, c),
    }
