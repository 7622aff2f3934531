"""The exp-sum under every shown p: llama.cpp's vectorised loop (exp_sum.py) against numpy's float64
sum of float32 exps, on rows with Gemma 3's spread and on the edge cases a vocabulary brings."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("llama_cpp")

from specview.backends.local import exp_sum as module
from specview.backends.local.exp_sum import exp_sum, reference_exp_sum
from specview.backends.local.verify import row_probabilities

pytestmark = pytest.mark.llama

VOCAB = 262_144
REL = 1e-6


def gemma_like(rng: np.random.Generator, n: int = VOCAB) -> np.ndarray:
    """Logits as Gemma 3 270M's rows are (measured: mean ≈ −2, sd ≈ 4.2, max 17–26, ≈ 50 nats
    from the lowest to the highest), a few hundred tokens in the head above the bulk."""
    row = rng.normal(-2.0, 4.2, n)
    head = rng.choice(n, 300, replace=False)
    row[head] = rng.uniform(8.0, 20.0, 300)
    row[int(rng.integers(n))] = rng.uniform(20.0, 26.0)
    return row.astype(np.float32)


def reference_p(row: np.ndarray, tokens: list[int]) -> list[float]:
    top = float(row.max())
    total = float(np.exp(row - top).sum(dtype=np.float64))
    return [float(np.exp(float(row[t]) - top) / total) for t in tokens]


def test_the_fast_loop_is_found_where_llama_cpp_is_installed() -> None:
    """Otherwise every p would silently take numpy's path (2–3 times slower)."""
    assert module._function() is not None


def test_gemma_like_rows_within_tolerance() -> None:
    rng = np.random.default_rng(22)
    for _ in range(20):
        row = gemma_like(rng)
        top_id = int(np.argmax(row))
        far = int(np.argmin(row))  # ≈ 45 nats below the max: p ≈ 1e-20, relative error the sum's
        some = int(rng.integers(VOCAB))
        got = row_probabilities(row, (top_id, far, some), top_id)
        assert got == pytest.approx(reference_p(row, [top_id, far, some]), rel=REL)
        assert got[1] > 0.0


@pytest.mark.parametrize("n", [1, 3, 7, 8, 9, 15, 17, 1000, VOCAB - 1])
def test_every_length_all_logits_equal(n: int) -> None:
    """Equal logits: each exp is exactly 1, so the sum is n exactly, vector lanes and tail alike."""
    row = np.full(n, 3.25, dtype=np.float32)
    assert exp_sum(row, 3.25) == float(n)
    assert row_probabilities(row, (0, n - 1)) == pytest.approx([1.0 / n, 1.0 / n], rel=REL)


def test_minus_infinity_padding_counts_nothing() -> None:
    """A draft vocabulary padded to the target's (drafters.py) ends in −inf entries."""
    rng = np.random.default_rng(3)
    row = gemma_like(rng)
    row[200_000:] = -np.inf
    top = float(row.max())
    assert exp_sum(row, top) == pytest.approx(reference_exp_sum(row, top), rel=REL)
    t = int(np.argmax(row))
    assert row_probabilities(row, (t, 250_000), t) == pytest.approx(reference_p(row, [t, 250_000]), rel=REL)
    assert row_probabilities(row, (250_000,), t) == [0.0]


def test_one_token_far_ahead_takes_everything() -> None:
    row = np.full(4099, -200.0, dtype=np.float32)
    row[17] = 0.0  # everything else is below float32 exp's range: exactly 0 in the sum
    assert exp_sum(row, 0.0) == 1.0
    assert row_probabilities(row, (17, 3), 17) == reference_p(row, [17, 3]) == [1.0, math.exp(-200.0)]


def test_other_rows_take_numpy_path_bit_for_bit() -> None:
    """Strided, float64 and non-finite-max rows are the reference's own computation."""
    rng = np.random.default_rng(5)
    wide = gemma_like(rng, 4096)
    strided = wide[::2]
    assert not strided.flags.c_contiguous
    assert exp_sum(strided, float(strided.max())) == reference_exp_sum(strided, float(strided.max()))
    doubles = wide.astype(np.float64)
    assert exp_sum(doubles, float(doubles.max())) == float(np.exp(doubles - doubles.max()).sum())
    empty = np.full(16, -np.inf, dtype=np.float32)
    with np.errstate(invalid="ignore"):  # −inf − −inf: both say so with NaN
        assert math.isnan(exp_sum(empty, -math.inf)) and math.isnan(reference_exp_sum(empty, -math.inf))
