"""Run the γ sweep: the same prompt once per γ (γ 0 = plain) through the ordinary backends.

Local llama runs time drafting and verifying, so c and the verify-cost ratio are measured (their
models are loaded once for the whole sweep); a remote server gives tok/s, τ and α only.
llama-server reads the draft length from its command line (`--spec-draft-n-max`) in current
builds and ignores the per-request `speculative.n_max`: when the runs' drafted lengths do not
follow γ, the sweep says so and names the restart-free alternatives instead of showing a sweep
that did not happen.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace

from specview.backends.local.run_options import LlamaRunOptions
from specview.features.sweep.model import AutoPoint, GammaPoint
from specview.kernel.backend import Note
from specview.kernel.runspec import RunSpec

# the server ignored the requested γ; the catalog text names the restart-free alternatives
IGNORED_GAMMA = Note("sweep_ignored_gamma")


def run_point(spec: RunSpec) -> GammaPoint:
    """One headless run, reduced to what the sweep needs."""
    from specview.backends.factory import make_backend
    from specview.kernel.session import Session

    session = Session(make_backend(spec))
    for _ in session.run_headless():
        pass
    metrics = session.metrics  # after a reconcile: the exact rounds, not the streamed ones
    drafted_rounds = metrics.drafting_rounds
    snap = metrics.snapshot()
    return GammaPoint(
        gamma=0 if spec.plain else (spec.gamma or 0),
        tokens=snap.tokens,
        rounds=snap.rounds,
        tokens_per_second=snap.tokens_per_second,
        tau=snap.tau,
        acceptance_rate=snap.acceptance_rate,
        per_position=snap.per_position_acceptance,
        draft_cost=snap.draft_cost,
        mean_verify_s=snap.mean_verify_s,
        mean_drafted=snap.drafted / drafted_rounds if drafted_rounds else None,
        accepted=snap.accepted,
        verified=snap.verified,
        max_drafted=metrics.max_drafted,
        tokens_per_second_spread=snap.tokens_per_second_spread,
        load=None if snap.calibration is None else snap.calibration.load,
    )


def auto_point(base: RunSpec) -> AutoPoint:
    """The same prompt with `--gamma auto`: the γ it chose last, why, and its tokens/s."""
    from specview.backends.factory import make_backend
    from specview.kernel.session import Session

    own = base.options
    if isinstance(own, LlamaRunOptions):
        own = replace(own, adaptive=False)
    session = Session(make_backend(replace(base, plain=False, gamma=None, gamma_auto=True, options=own)))
    for _ in session.run_headless():
        pass
    snap = session.metrics.snapshot()
    choice = snap.gamma_choice
    return AutoPoint(gamma=0 if choice is None else choice.gamma, why="learning" if choice is None else choice.why,
                     tokens_per_second=snap.tokens_per_second, gamma_counts=snap.gamma_counts)


def gamma_points(base: RunSpec, gammas: list[int], *, plain: bool,
                 progress: Callable[[int], None] | None = None) -> tuple[list[GammaPoint], tuple[Note, ...]]:
    """Every γ in `gammas` (and plain first when `plain`), plus notes on what did not hold."""
    base = replace(base, gamma_auto=False)  # the sweep's γ are fixed (`--gamma auto` runs beside it: auto_point)
    runs = ([replace(base, plain=True, gamma=None)] if plain else []) + [
        replace(base, plain=False, gamma=g) for g in gammas
    ]
    points = []
    with _models_kept(base):
        for spec in runs:
            if progress is not None:
                progress(0 if spec.plain else (spec.gamma or 0))
            points.append(run_point(spec))
    return points, tuple(ignored_gamma_notes(points))


def _models_kept(base: RunSpec) -> AbstractContextManager[None]:
    """Local runs load each model once for the whole sweep, not once per γ (backends/local/pool.py)."""
    if base.kind != "llama":
        return nullcontext()
    from specview.backends.local.pool import POOL

    return POOL.keep()


def ignored_gamma_notes(points: list[GammaPoint]) -> list[Note]:
    """The note when γ was not honoured: a run drafted more than asked, or every run drafted the
    same longest draft although different γ were asked."""
    drafting = [p for p in points if p.gamma > 0 and p.max_drafted > 0]
    over = any(p.max_drafted > p.gamma for p in drafting)
    same = len(drafting) > 1 and len({p.max_drafted for p in drafting}) == 1 and len({p.gamma for p in drafting}) > 1
    return [IGNORED_GAMMA] if over or same else []
