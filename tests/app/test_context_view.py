"""The live view's chart of acceptance by context position (issue 21, item 1)."""

from __future__ import annotations

import pytest
from textual.widgets import Label

from specview.kernel.langs import LANGS
from specview.texts.catalog import text
from specview.widgets.context_chart import ContextChart
from specview.widgets.history_chart import HistoryChart
from specview.widgets.position_bars import PositionBars
from tests.support.app_helpers import sim_app, wait_finished, wait_until
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


async def test_compare_marks_the_run_whose_acceptance_decays_with_context() -> None:
    from specview.backends.factory import make_backend
    from specview.features.live.app import SpecviewApp
    from specview.features.live.compare_screen import CompareScreen
    from specview.kernel.runspec import RunSpec
    from specview.widgets.run_pane import RunPane
    from specview.widgets.summary_table import SummaryTable

    specs = [RunSpec(preset=p, seed=5, speed=0.0, max_rounds=12_000) for p in ("qwen3.5-mtp-long", "qwen3.6-mtp")]
    app = SpecviewApp(specs[0], make_backend(specs[0]), compare=[make_backend(s) for s in specs])
    async with app.run_test(size=(160, 40)) as pilot:
        cmp = app.screen_stack[0]
        assert isinstance(cmp, CompareScreen)

        def drawn() -> bool:
            return all(s.drain(limit=0).finished for s in cmp.sessions) and cmp.drawn_rounds == [
                s.produced for s in cmp.sessions]

        await wait_until(pilot, drawn, timeout=120)
        cmp.refresh_summary()
        panes = list(cmp.query(RunPane))
        await wait_until(pilot, lambda: "▼" in screen_text(app, panes[0].region))  # drawn (slow under load)
        decaying, flat = (screen_text(app, pane.region) for pane in panes)
        assert "▼" in decaying and "▼" not in flat
        table = app.screen.query_one(SummaryTable)
        assert text("gauge.context_drop.short", "en") in screen_text(app, table.region)
