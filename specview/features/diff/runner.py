"""Run two backends to the end on one thread each in turn and compare what they emitted.

The reference backend stays open until the comparison is done, so a local reference can
recompute the target's logits at the divergence (`local/margin.py`). A backend that ends
with a Reconcile (vLLM) is compared on its exact rounds.
"""

from __future__ import annotations

import threading

from specview.features.diff.model import DiffResult, emitted, first_divergence
from specview.kernel.backend import Backend, BackendKind
from specview.kernel.events import Reconcile, Round


def collect(backend: Backend) -> list[Round]:
    """Every round the backend produces (reconciled when it says so)."""
    rounds: list[Round] = []
    for item in backend.rounds(threading.Event()):
        if isinstance(item, Reconcile):
            rounds = [r for r in rounds if r.index < item.first_index] + list(item.rounds)
        elif isinstance(item, Round):  # a Calibration says what decoding costs, not what was emitted
            rounds.append(item)
    return rounds


def compare_backends(reference: Backend, candidate: Backend) -> DiffResult:
    """Run both; the verdict, with the logit margin when the reference is local llama.cpp."""
    try:
        ref = emitted(collect(reference))
        cand = emitted(collect(candidate))
        compared, divergence = first_divergence(ref, cand)
        margin = None
        if divergence is not None and not divergence.by_text:
            a, b = divergence.reference, divergence.candidate
            local = reference.info.backend == BackendKind.LLAMA  # llama.cpp is imported only then
            if local and a is not None and b is not None and a.token_id is not None and b.token_id is not None:
                from specview.backends.local.backend import LlamaBackend
                from specview.features.diff.margin import logit_margin

                assert isinstance(reference, LlamaBackend)
                prefix = [e.token_id for e in ref[: divergence.index] if e.token_id is not None]
                margin = logit_margin(reference, prefix, a.token_id, b.token_id)
        return DiffResult(reference.info.label, candidate.info.label, compared, divergence, margin)
    finally:
        reference.close()
        candidate.close()
