"""Screen 3 · the causal mask of one verify forward.

The batch is [pending, d1 … dγ] after the cached context. Row i attends to every position
≤ i. The logits of the pending row score d1, those of d_j score d_{j+1}, and the last row
gives the bonus: the score for draft j comes from row j − 1, which cannot see draft j.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def mask_numbers(
    context: Sequence[str], pending: str, drafts: Sequence[str], selected: int | None = None,
) -> dict[str, Any]:
    """The mask over context + batch, what each batch row scores, and the selected row's view."""
    labels = [*context, pending, *drafts]
    n, cached = len(labels), len(context)
    row = cached if selected is None else selected
    if not 0 <= row < n:
        raise ValueError(f"selected row must be in [0, {n}), got {row}")
    mask = [[1 if k <= i else 0 for k in range(n)] for i in range(n)]
    # Row cached + j scores draft j + 1 (1-based), or the bonus after the last draft.
    scores: list[int | None] = [None] * cached + list(range(1, len(drafts) + 2))
    scored = scores[row]
    scored_column = None if scored is None or scored > len(drafts) else cached + scored
    return {
        "labels": list(labels),
        "cached": cached,
        "drafts": len(drafts),
        "mask": mask,
        "scores": scores,
        "selected": row,
        "selected_attends": [labels[k] for k in range(n) if mask[row][k]],
        "selected_scores": scored,  # draft number, len(drafts) + 1 = the bonus, None = a cached row
        "scored_column": scored_column,
        "scored_is_masked": scored_column is None or mask[row][scored_column] == 0,
    }
