"""The stats object `bench --json` and `replay --json` print."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from specview.core.overlay import overlay

if TYPE_CHECKING:
    from specview.core.backend import BackendInfo
    from specview.core.events import Basis
    from specview.core.metrics import MetricsSnapshot

MEASURED_OUTPUTS = ("acceptance", "tau", "tokens_per_second", "draft_cost")


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def provenance(info: BackendInfo, speedup_basis: Basis | None) -> dict[str, Any]:
    """Where each number comes from: a simulator preset's fields and outputs, else "measured";
    the speedup's baseline by name ("none" when the run has none)."""
    out: dict[str, Any] = {k: v for k, v in info.provenance.items() if k != "outputs"}
    outputs = dict(info.provenance.get("outputs") or {key: "measured" for key in MEASURED_OUTPUTS})
    outputs.setdefault("speedup", speedup_basis or "none")
    out["outputs"] = outputs
    out["speedup_basis"] = speedup_basis or "none"
    return out


def stats_dict(info: BackendInfo, snap: MetricsSnapshot, text: str) -> dict[str, Any]:
    """One JSON-ready object with the keys DESIGN.md lists, plus seed, model names, the
    verify-cost curve, the measured speedup with its baseline, and where every number comes from."""
    over = overlay(snap)
    cal = snap.calibration
    return {
        "backend": info.backend,
        "preset": info.preset,
        "model": info.model,
        "draft": info.draft,
        "seed": info.seed,
        "gamma": info.gamma,
        "temperature": info.temperature,
        "rounds": snap.rounds,
        "tokens": snap.tokens,
        "drafted": snap.drafted,
        "accepted": snap.accepted,
        "verified": snap.verified,
        "acceptance_rate": _round(snap.acceptance_rate),
        "draft_yield": _round(snap.draft_yield),
        "tau": _round(snap.tau),
        "expected_tau": _round(snap.expected_tau),
        "tokens_per_second": _round(snap.tokens_per_second, 2),
        "per_position_acceptance": [_round(a) for a in snap.per_position_acceptance],
        "draft_cost": _round(snap.draft_cost),
        "verify_cost": None if cal is None or not cal.verify_costs_s else [_round(c, 6) for c in cal.verify_costs_s],
        "verify_ratio": _round(over.verify_ratio),
        "plain_tokens_per_second": _round(over.plain_tokens_per_second, 2),
        "speedup": _round(over.speedup_measured),
        "speedup_theory": _round(over.speedup_theory),
        "best_gamma": over.best_gamma,
        "provenance": provenance(info, over.speedup_basis),
        "elapsed_s": _round(snap.elapsed_s),
        "text": text,
    }
