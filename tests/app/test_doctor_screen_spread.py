"""The doctor screen draws the per-request spread's histogram, its scale stated, where the readings it is
handed carry requests of ours (the command's probes); from a watch's own readings there are none."""

from __future__ import annotations

import pytest
from textual.app import App

from specview.features.doctor.observe import Observation
from specview.features.doctor.probe import ProbeResult
from specview.features.doctor.screen import DoctorScreen
from specview.kernel.langs import LANGS
from specview.texts.catalog import fill
from tests.support.app_helpers import wait_until
from tests.support.catalog_walk import screen_text


def observed() -> Observation:
    obs = Observation("http://127.0.0.1:8080", "llama-server", "ngram-simple", 4, True, 2.0, samples=2)
    obs.probes = [ProbeResult(48, 900.0, 40, 20 + i % 2, 1.0, request_id=f"cmpl-{i}", counts_source="timings.draft_n")
                  for i in range(6)]
    obs.probes.append(ProbeResult(48, 900.0, 40, 40, 1.0, request_id="cmpl-loop", counts_source="timings.draft_n"))
    return obs


@pytest.mark.parametrize("lang", LANGS)
async def test_the_screen_draws_the_histogram_with_its_scale_and_names_the_outlier(lang: str) -> None:
    app: App[None] = App()
    async with app.run_test(size=(120, 60)) as pilot:
        await app.push_screen(DoctorScreen(observed, "watch", lang))
        await wait_until(pilot, lambda: isinstance(app.screen, DoctorScreen) and app.screen.shown)
        shown = "\n".join(app.screen.shown) if isinstance(app.screen, DoctorScreen) else ""
        assert fill("request_spread.chart_head", lang, n=7, cells=20, top=6) in shown
        assert "0.5–0.6 ▕████████████████████▏ 6" in shown and "0.9–1.0 ▕███" in shown
        assert "cmpl-loop" in shown and fill("request_spread.reason.high", lang) in shown
        await wait_until(pilot, lambda: "▲" in screen_text(app))  # `shown` is set before the screen draws it
