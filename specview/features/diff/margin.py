"""The target's logits where two greedy runs diverged: was it a near-tie, or a real loss?

Recomputed on the reference run's own model (plain decoding's target): the cache is emptied,
the prompt and the common prefix are evaluated in n_batch chunks, and the last row's logits
for both tokens are read, with the top-1 − top-2 gap of that row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from specview.backends.local.backend import LlamaBackend
from specview.features.diff.model import Margin
from specview.kernel.errors import BackendError


def logit_margin(backend: LlamaBackend, prefix: Sequence[int], reference: int, candidate: int) -> Margin:
    """Logits of `reference` and `candidate` after prompt + `prefix` on `backend`'s target."""
    target = backend.target
    tokens = [*backend.prompt_tokens, *prefix]
    if len(tokens) >= target.n_ctx:
        raise BackendError("the prompt and the common prefix do not fit the context to recompute the margin")
    if not (0 <= reference < target.n_vocab and 0 <= candidate < target.n_vocab):
        raise BackendError("a diverging token is outside the target's vocabulary")
    target.reset()
    rows = target.prefill(tokens)
    if rows is None:
        raise BackendError("recomputing the margin was interrupted")
    logits = rows[-1][: target.n_vocab]
    best = np.partition(logits, -2)[-2:]  # the two largest, unordered
    return Margin(float(logits[reference]), float(logits[candidate]), float(abs(best[1] - best[0])))
