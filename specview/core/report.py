"""The stats object `bench --json` and `replay --json` print."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from specview.core.backend import BackendInfo
    from specview.core.metrics import MetricsSnapshot


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def stats_dict(info: BackendInfo, snap: MetricsSnapshot, text: str) -> dict[str, Any]:
    """One JSON-ready object with the keys DESIGN.md lists, plus seed and model names."""
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
        "elapsed_s": _round(snap.elapsed_s),
        "text": text,
    }
