"""q's few most probable tokens from a 262k-wide row, cheaply."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def top_tokens(row: npt.NDArray[np.floating], k: int) -> list[int]:
    """The k highest entries of `row`, highest first (ties: the lower id first).

    k argmax passes, each entry found masked to -inf and restored afterwards: for the few
    tokens a tree or the inspector wants this is several times cheaper than argpartition
    (2.3 ms on a 262k row here, against 0.14 ms an argmax). The row is left as it was."""
    k = min(k, len(row))
    found: list[int] = []
    saved: list[float] = []
    try:
        for _ in range(k):
            t = int(row.argmax())
            found.append(t)
            saved.append(float(row[t]))
            row[t] = -np.inf
    finally:
        for t, value in zip(found, saved, strict=True):
            row[t] = value
    return found
