"""The stats object `bench --json` and `replay --json` print."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from specview.kernel.context_acceptance import acceptance_json
from specview.kernel.drafters import drafters_json
from specview.kernel.overlay import overlay

if TYPE_CHECKING:
    from specview.kernel.backend import BackendInfo
    from specview.kernel.events import Basis
    from specview.kernel.metrics import MetricsSnapshot

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


def totals_dict(snap: MetricsSnapshot) -> dict[str, Any] | None:
    """The servers' end-of-request totals the run's counts rest on (null when none came): what
    they said, over how many requests, and which numbers they make exact."""
    if snap.totals is None:
        return None
    return {**snap.totals.to_dict(), "requests": snap.totals_requests, "exact": sorted(snap.exact_totals)}


def stats_dict(info: BackendInfo, snap: MetricsSnapshot, text: str) -> dict[str, Any]:
    """One JSON-ready object with the keys DESIGN.md lists, plus seed, model names, the
    verify-cost curve, the measured speedup with its baseline, where every number comes from,
    the servers' totals and the /metrics cross-check's result."""
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
        # per position: verified counts only rounds that drafted the position (early stops are no rejections)
        "per_position_verified": list(snap.per_position_verified),
        "gamma_counts": {str(g): n for g, n in snap.gamma_counts},
        "by_drafter": drafters_json(snap.drafters),
        "acceptance_by_context": acceptance_json(snap.context, info.prompt_tokens),
        "draft_cost": _round(snap.draft_cost),
        "verify_cost": None if cal is None or not cal.verify_costs_s else [_round(c, 6) for c in cal.verify_costs_s],
        "verify_ratio": _round(over.verify_ratio),
        "plain_tokens_per_second": _round(over.plain_tokens_per_second, 2),
        "speedup": _round(over.speedup_measured),
        "speedup_theory": _round(over.speedup_theory),
        "best_gamma": over.best_gamma,
        "provenance": provenance(info, over.speedup_basis),
        "totals": totals_dict(snap),
        "cross_check": None if snap.cross_check is None else snap.cross_check.to_dict(),
        "elapsed_s": _round(snap.elapsed_s),
        "text": text,
    }
