"""The live view's chart of acceptance by context position (issue 21, item 1)."""

from __future__ import annotations

import pytest
from textual.widgets import Label

from specview.kernel.langs import LANGS
from specview.texts.catalog import text
from specview.widgets.context_chart import ContextChart
from specview.widgets.history_chart import HistoryChart
from specview.widgets.position_bars import PositionBars
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


async def test_gamma_per_round_and_the_rounds_behind_each_bar_are_on_screen() -> None:
    app = sim_app("dspark", max_rounds=400)
    async with app.run_test(size=(120, 70)) as pilot:
        await wait_finished(pilot)
        gammas = app.live.query_one("#gammas", HistoryChart)
        snap = app.live.session.metrics.snapshot()
        assert list(gammas.data or []) and len(set(gammas.data or [])) >= 4  # the verify length changes
        assert list(gammas.data or []) == [float(g) for g in snap.gamma_history][-len(gammas.data or []):]
        bars = app.live.query_one(PositionBars)
        first = bars.values[0][1]
        assert first.endswith(f"({snap.per_position_verified[0]})")
        assert text("depth.title", "en") in screen_text(app)
        assert str(app.live.query_one("#drafters", Label).render()) == ""  # one drafter: no per-drafter lines
