"""The live run as the Learn screens see it (the live screen's `learn_context`)."""

from __future__ import annotations

from specview.backends.local.run_options import llama_options
from specview.features.learn.explain.context import RunContext
from specview.kernel.backend import BackendInfo
from specview.kernel.events import Basis
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.kernel.tree_cost import verify_drafts

RECENT_ROUNDS = 8  # rounds the Learn screens look at: the last one drafted, and text before it
CONTEXT_TOKENS = 4


def run_context(info: BackendInfo, session: Session, spec: RunSpec) -> RunContext:
    """Measured α, γ, c, τ, the verify curve, the model file and the last drafting round."""
    snap = session.metrics.snapshot()
    gamma = info.gamma if info.gamma is not None else (round(snap.mean_gamma) if snap.mean_gamma else None)
    own = llama_options(spec)
    target = own.target
    if target is None and own.demo:
        from specview.backends.local.demo import demo_model_path

        target = str(demo_model_path())
    rounds = session.history[-RECENT_ROUNDS:]
    drafted = [i for i, r in enumerate(rounds) if r.drafted]
    last = rounds[drafted[-1]] if drafted else None
    earlier = rounds[: drafted[-1]] if drafted else []
    before = tuple(t.text for r in earlier for t in r.tokens if t.emitted)
    cal = snap.calibration if snap.calibration is not None and snap.calibration.basis is Basis.MEASURED else None
    return RunContext(
        backend=info.backend,
        origin=info.origin,
        alpha=snap.acceptance_rate,
        gamma=gamma,
        c=snap.draft_cost,
        tau=snap.tau,
        per_position=snap.per_position_acceptance,
        # a tree verifies all its nodes: v(nodes), not v(depth) (kernel/tree_cost.py)
        verify_ratio=None if cal is None or gamma is None
        else cal.verify_ratio(verify_drafts(gamma, snap.tree_nodes)),
        verify_costs_s=() if cal is None else cal.verify_costs_s,
        tokens_per_second=snap.tokens_per_second,
        target_path=target,
        last_round=last,
        before_round=before[-CONTEXT_TOKENS:],
    )
