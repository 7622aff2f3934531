"""The live view's chart of acceptance by context position (issue 21, item 1)."""

from __future__ import annotations

import pytest

from specview.kernel.langs import LANGS
from specview.texts.catalog import text
from specview.widgets.context_chart import ContextChart
from tests.support.app_helpers import sim_app, wait_finished
from tests.support.catalog_walk import screen_text


@pytest.mark.parametrize("lang", LANGS)
async def test_the_side_panel_charts_acceptance_by_context_position(lang: str) -> None:
    app = sim_app("qwen3.6-mtp", max_rounds=1500, lang=lang)
    async with app.run_test(size=(120, 60)) as pilot:
        await wait_finished(pilot)
        chart = app.live.query_one(ContextChart)
        values, caption, mark, decayed = chart.shown
        snap = app.live.session.metrics.snapshot()
        assert snap.context is not None and len(values) == len(snap.context.buckets) > 2
        shown = screen_text(app, chart.region)
        assert "▕" in shown and caption.split(" ")[0] in shown
        assert not decayed and mark  # a flat preset: the check ran and found nothing beyond noise
        assert text("context.title", lang) in screen_text(app)
