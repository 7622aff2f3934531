"""Run two backends to the end on one thread each in turn and compare what they emitted.

The reference backend stays open until the comparison is done, so a local reference can
recompute the target's logits at the divergence and re-run the speculative run's batches
(`cause.py`). A backend that ends with a Reconcile (vLLM) is compared on its exact rounds.
"""

from __future__ import annotations

import threading

from specview.features.diff.model import (
    EXACT,
    Cause,
    DiffResult,
    Divergence,
    Emitted,
    Margin,
    emitted,
    first_divergence,
)
from specview.kernel.backend import Backend, BackendKind
from specview.kernel.calibration import Calibration
from specview.kernel.errors import BackendError
from specview.kernel.events import Reconcile, Round
from specview.kernel.gamma_choice import GammaChoice
from specview.kernel.runspec import RunSpec
from specview.kernel.stream_kinds import fold_item
from specview.kernel.totals import CrossChecked, Totals


class _Emitted:
    """A StreamFold (kernel/stream_kinds.py) that keeps what a run emitted: its rounds, reconciled
    when it says so; what it says besides (what decoding costs, a server's counts, γ auto's
    decisions) is not what was emitted."""

    def __init__(self) -> None:
        self.rounds: list[Round] = []

    def add_round(self, rnd: Round) -> None:
        self.rounds.append(rnd)

    def reconcile(self, item: Reconcile) -> None:
        self.rounds = [r for r in self.rounds if r.index < item.first_index] + list(item.rounds)

    def calibrate(self, cal: Calibration) -> None:
        pass

    def close_request(self, totals: Totals) -> None:
        pass

    def cross_checked(self, item: CrossChecked) -> None:
        pass

    def gamma_chosen(self, item: GammaChoice) -> None:
        pass


def collect(backend: Backend) -> list[Round]:
    """Every round the backend produces (reconciled when it says so)."""
    emitted = _Emitted()
    for item in backend.rounds(threading.Event()):
        fold_item(emitted, item)
    return emitted.rounds


def compare_specs(reference: RunSpec, candidate: RunSpec) -> tuple[DiffResult, str]:
    """Build both runs and compare them (in the local engine's process when one is local): the
    verdict and the reference's model name."""
    from specview.backends.factory import make_backend

    ref = make_backend(reference)
    try:
        cand = make_backend(candidate)
    except BaseException:
        ref.close()
        raise
    return compare_backends(ref, cand), ref.info.model or ""


def compare_backends(reference: Backend, candidate: Backend) -> DiffResult:
    """Run both; the verdict, with the logit margin and the cause when the reference is local llama.cpp."""
    try:
        ref = emitted(collect(reference))
        cand = emitted(collect(candidate))
        compared, divergence = first_divergence(ref, cand)
        if divergence is None:
            return DiffResult(reference.info.label, candidate.info.label, compared, None, cause=Cause(EXACT))
        margin, cause = None, None
        local = reference.info.backend == BackendKind.LLAMA  # llama.cpp is imported only then
        if local and not divergence.by_text:
            margin, cause = _local_verdict(reference, candidate, divergence, cand)
        return DiffResult(reference.info.label, candidate.info.label, compared, divergence, margin, cause)
    finally:
        reference.close()
        candidate.close()


def _local_verdict(reference: Backend, candidate: Backend, divergence: Divergence,
                   cand: list[Emitted]) -> tuple[Margin | None, Cause | None]:
    """The margin on the reference's computation, and the cause when the candidate's batches are known."""
    from specview.backends.local.backend import LlamaBackend
    from specview.backends.local.replay import BatchedRun
    from specview.features.diff.cause import cause_of, logit_margin

    a, b = divergence.reference, divergence.candidate
    if a is None or b is None or a.token_id is None or b.token_id is None:
        return None, None
    assert isinstance(reference, LlamaBackend)
    margin = logit_margin(reference, divergence.index, a.token_id, b.token_id)
    if not isinstance(candidate, BatchedRun):
        return margin, None
    ids = [e.token_id for e in cand[: divergence.index + 1] if e.token_id is not None]
    candidate.close()  # its context goes before the replay's opens (the reference still holds the model)
    try:
        return margin, cause_of(reference, candidate, ids, divergence.index, a.token_id, b.token_id, margin)
    except BackendError:  # no room for the replay's context: the verdict stands on the margin alone
        return margin, None
