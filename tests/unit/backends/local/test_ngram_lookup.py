"""Prompt lookup (the n-gram drafter): the latest earlier match of the history's tail."""

from __future__ import annotations

import numpy as np

from specview.backends.local.drafters import NgramDrafter


def test_ngram_lookup_finds_the_latest_earlier_match() -> None:
    """The lookup narrows candidates position by position; the answer is the sliding-window one."""
    def windows(history: list[int], gamma: int, n_max: int, n_min: int) -> list[int]:
        arr = np.asarray(history, dtype=np.int64)
        for n in range(min(n_max, len(arr) - 1), n_min - 1, -1):
            view = np.lib.stride_tricks.sliding_window_view(arr[:-1], n)
            hits = np.flatnonzero((view == arr[-n:]).all(axis=1))
            if len(hits):
                start = int(hits[-1]) + n
                return [int(t) for t in arr[start : start + gamma]]
        return []

    rng = np.random.default_rng(5)
    for n_max, n_min in ((3, 3), (3, 1), (4, 2), (1, 1)):
        drafter = NgramDrafter(16, n_max, n_min)
        for _ in range(1500):
            history = [int(t) for t in rng.integers(0, int(rng.integers(1, 6)), int(rng.integers(1, 50)))]
            gamma = int(rng.integers(0, 6))
            assert drafter.propose(history, gamma) == windows(history, gamma, n_max, n_min)
    assert NgramDrafter(16, 3, 3).propose([7, 1, 2, 3, 8, 1, 2, 3, 9, 1, 2, 3], 2) == [9, 1]
