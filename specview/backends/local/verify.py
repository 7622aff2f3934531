"""Verification of one round on raw target logits rows.

Greedy uses the rule of `core.sampling.verify_greedy` directly on float32 logits: argmax
per row, stopping at the first mismatch, so rows after a rejection are never touched and
nothing is converted to float64 (with a 262k vocabulary that conversion costs more than the
verdict). T > 0 goes through `core.sampling.probabilities` + `verify_sampling` unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from specview.backends.local.exp_sum import exp_sum
from specview.kernel.events import TokenStatus
from specview.kernel.sampling import Decision, probabilities, verify_sampling

FloatRows = npt.NDArray[np.float64]


def row_probabilities(row: npt.NDArray[np.floating], tokens: Sequence[int], top_id: int | None = None) -> list[float]:
    """softmax(row)[t] at T = 1 for each token t, via one exp-sum over the row (and one max
    unless the caller knows the argmax `top_id`: row[argmax] is the max, bit for bit).

    Within 1e-6 relative of the float64 softmax of numpy's exps (exp_sum.py says why not bit
    for bit): p is shown, never decides a token."""
    top = float(row.max() if top_id is None else row[top_id])
    total = exp_sum(row, top)
    return [float(np.exp(float(row[t]) - top) / total) for t in tokens]


def row_probability(row: npt.NDArray[np.floating], token: int, top_id: int | None = None) -> float:
    """softmax(row)[token] at T = 1."""
    return row_probabilities(row, (token,), top_id)[0]


def verify_greedy_logits(
    rows: npt.NDArray[np.floating],
    drafts: Sequence[int],
    q_values: Sequence[float | None] = (),
    *,
    one_hot: bool = False,
) -> list[Decision]:
    """Greedy verdict: same tokens and statuses as core `verify_greedy(rows, drafts)`.

    p is the target's softmax probability (T = 1) of each reported token; q the draft's
    probability of its own draft (`q_values`), and 0.0 for a correction when q is one-hot.
    """
    decisions: list[Decision] = []
    for k, draft in enumerate(drafts):
        row = rows[k]
        target = int(row.argmax())
        qk = q_values[k] if k < len(q_values) else None
        if draft == target:
            decisions.append(Decision(draft, TokenStatus.ACCEPTED, k, row_probability(row, draft, target), qk))
            continue
        p_draft, p_target = row_probabilities(row, (draft, target), target)  # one pass over the vocabulary
        decisions.append(Decision(draft, TokenStatus.REJECTED, k, p_draft, qk))
        q_fix = 0.0 if one_hot else None
        decisions.append(Decision(target, TokenStatus.CORRECTED, k, p_target, q_fix))
        return decisions
    gamma = len(drafts)
    bonus = int(rows[gamma].argmax())
    status = TokenStatus.BONUS if gamma else TokenStatus.PLAIN
    decisions.append(Decision(bonus, status, gamma, row_probability(rows[gamma], bonus, bonus), None))
    return decisions


def verify_sampled_logits(
    rows: npt.NDArray[np.floating],
    drafts: Sequence[int],
    q_rows: FloatRows | None,
    temperature: float,
    rng: np.random.Generator,
) -> list[Decision]:
    """Leviathan rejection sampling with p = probabilities(rows, T) and the draft's q rows."""
    p = probabilities(rows[: len(drafts) + 1], temperature)
    return list(verify_sampling(p, q_rows, drafts, rng).decisions)
