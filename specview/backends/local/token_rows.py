"""A drafted position's real target and draft distributions, recomputed on demand for Learn screen 6.

Keeping every round's full rows would cost a 262k-wide copy (or a top-k search) per verified
position during decoding; instead, when the user opens a token, this opens its own contexts on
the run's models (shared through pool.py, one context decoding at a time) and runs one forward
over the same prefix (prompt + committed tokens before that position). The result matches the
run's p and q up to floating-point differences between batch shapes. Call it from a worker
thread: loading and prefilling take a moment.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from specview.backends.local.lib import supports_gpu_offload
from specview.backends.local.model import ModelRunner
from specview.backends.reason import role_word
from specview.features.learn.explain.context import TokenRows
from specview.features.learn.explain.rounds import label
from specview.kernel.errors import BackendError
from specview.kernel.sampling import probabilities

TOP = 6  # tokens shown from each distribution
MAX_PREFIX = 8192  # tokens recomputed at most


def _row(
    path: Path, role: str, prefix: Sequence[int], width: int | None,
) -> tuple[npt.NDArray[np.float32], ModelRunner]:
    """The logits row after `prefix` (a copy), and the runner (the caller closes it)."""
    runner = ModelRunner(path, role=role, n_gpu_layers=-1 if supports_gpu_offload() else 0)
    try:
        runner.open_context(len(prefix) + 8)
        logits = runner.prefill(list(prefix))
        if logits is None:
            raise BackendError("backenderr.rows.no_logits", role=role_word(role))
        row = np.array(logits[-1], dtype=np.float32)  # a copy: the view dies with the next call
    except BaseException:
        runner.close()
        raise
    if width is not None and len(row) != width:  # a draft vocabulary cut or padded to the target's
        fitted = np.full(width, -np.inf, dtype=np.float32)
        fitted[: min(width, len(row))] = row[:width]
        row = fitted
    return row, runner


def _distribution(row: npt.NDArray[np.float32], temperature: float) -> npt.NDArray[np.float64]:
    # At T = 0 the run reports softmax(row) at T = 1 for p and q (the argmax decides), so show that.
    return probabilities(row, temperature if temperature > 0 else 1.0)


def position_rows(
    target: str, draft: str | None, prefix: Sequence[int], drafted: int, temperature: float, top: int = TOP,
) -> TokenRows:
    """p and q at the position after `prefix` (draft None or "ngram": q is one-hot at `drafted`)."""
    if not prefix or len(prefix) > MAX_PREFIX:
        raise BackendError("backenderr.rows.prefix", n=len(prefix), most=MAX_PREFIX)
    p_row, runner = _row(Path(target), "target", prefix, None)
    try:
        vocab = len(p_row)
        if not 0 <= drafted < vocab:
            raise BackendError("backenderr.rows.outside", token=drafted)
        p = _distribution(p_row, temperature)
        if draft is None or draft == "ngram":
            q = np.zeros(vocab)
            q[drafted] = 1.0
        else:
            q_row, draft_runner = _row(Path(draft), "draft", prefix, vocab)
            draft_runner.close()
            q = _distribution(q_row, temperature)
        chosen = {drafted}
        for dist in (p, q):
            chosen.update(int(i) for i in np.argpartition(-dist, top)[:top])
        ids = sorted(chosen, key=lambda i: -p[i])
        labels = [label(runner.piece(i).decode("utf-8", errors="replace")) for i in ids]
    finally:
        runner.close()
    p_top, q_top = [float(p[i]) for i in ids], [float(q[i]) for i in ids]
    alpha = float(np.minimum(p, q).sum())
    return TokenRows(
        labels=(*labels, "…"),
        p=(*p_top, max(0.0, 1.0 - sum(p_top))),
        q=(*q_top, max(0.0, 1.0 - sum(q_top))),
        alpha=alpha,
        tv=1.0 - alpha,
        chosen=ids.index(drafted),
    )
