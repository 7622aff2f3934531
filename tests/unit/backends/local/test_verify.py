"""The greedy verdict's p on raw logits rows: the plain softmax's numbers within 1e-6 relative
(llama.cpp's vectorised exp-sum, exp_sum.py), without a megabyte of temporaries per row (a 262k
vocabulary, every round)."""

from __future__ import annotations

import threading
import tracemalloc

import numpy as np
import pytest

from specview.backends.local.verify import row_probabilities, row_probability, verify_greedy_logits
from specview.kernel.events import TokenStatus

VOCAB = 262_144  # Gemma 3's
REL = 1e-6  # exp_sum.py's stated tolerance


def reference(row: np.ndarray, tokens: list[int]) -> list[float]:
    """What the loop computed before: one max, then exp and a float64 sum over fresh arrays."""
    top = float(row.max())
    total = float(np.exp(row - top).sum(dtype=np.float64))
    return [float(np.exp(float(row[t]) - top) / total) for t in tokens]


def test_probabilities_are_the_plain_softmax_within_its_tolerance() -> None:
    rng = np.random.default_rng(7)
    for trial in range(60):
        n = VOCAB if trial % 3 == 0 else int(rng.integers(2, 40_000))
        row = (rng.standard_normal(n) * rng.uniform(0.5, 12.0)).astype(np.float32)
        if trial % 5 == 0:
            row[int(rng.integers(n)) :] = -np.inf  # a draft row padded to the target's vocabulary
        top = int(np.argmax(row))
        other = int(rng.integers(n))
        expected = reference(row, [other, top])
        assert row_probabilities(row, (other, top), top) == pytest.approx(expected, rel=REL)  # the argmax given
        assert row_probabilities(row, (other, top)) == pytest.approx(expected, rel=REL)  # or found
        assert row_probability(row, top, top) == pytest.approx(expected[1], rel=REL)
    wide = rng.standard_normal(1000)  # float64 rows take numpy's path, the reference itself
    assert row_probabilities(wide, (3,)) == reference(wide, [3])


def test_greedy_verdict_allocates_no_row_sized_temporaries() -> None:
    rng = np.random.default_rng(1)
    rows = (rng.standard_normal((5, VOCAB)) * 4).astype(np.float32)
    drafts = [int(np.argmax(r)) for r in rows[:4]]
    verify_greedy_logits(rows, drafts)  # the buffer this thread reuses is made once
    tracemalloc.start()
    try:
        decisions = verify_greedy_logits(rows, drafts)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [d.status for d in decisions] == [TokenStatus.ACCEPTED] * 4 + [TokenStatus.BONUS]
    assert [d.p for d in decisions] == pytest.approx([reference(r, [int(np.argmax(r))])[0] for r in rows], rel=REL)
    assert peak < VOCAB  # a fresh float32 row alone is 4 × VOCAB bytes


def test_each_thread_has_its_own_buffer() -> None:
    """Two local runs side by side (compare) verify on two threads at once."""
    rng = np.random.default_rng(2)
    rows = [(rng.standard_normal(VOCAB) * s).astype(np.float32) for s in (1.0, 9.0)]
    expected = [reference(r, [int(np.argmax(r))]) for r in rows]
    got: list[list[list[float]]] = [[], []]

    def work(i: int) -> None:
        for _ in range(20):
            got[i].append(row_probabilities(rows[i], (int(np.argmax(rows[i])),)))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got[0] == [got[0][0]] * 20 and got[1] == [got[1][0]] * 20  # neither thread saw the other's buffer
    assert [got[0][0], got[1][0]] == [pytest.approx(e, rel=REL) for e in expected]

