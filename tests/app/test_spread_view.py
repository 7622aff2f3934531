"""The speedup with its spread on screen: the live side panel and the compare summary say "x× ± y"."""

from __future__ import annotations

import pytest

from specview.backends.factory import make_backend
from specview.features.live.app import SpecviewApp
from specview.features.live.compare_screen import CompareScreen
from specview.kernel.gauges import SUMMARY, Reading, gauges
from specview.kernel.langs import LANGS
from specview.kernel.runspec import RunSpec
from specview.widgets.stat_gauge import StatGauge
from specview.widgets.summary_table import SummaryTable
from tests.support.app_helpers import sim_app, wait_finished, wait_until


@pytest.mark.parametrize("lang", LANGS)
async def test_the_side_panel_shows_the_speedup_with_its_spread(lang: str) -> None:
    app = sim_app("qwen3.6-mtp", max_rounds=120, lang=lang)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        over = Reading.of(app.live.session.metrics.snapshot(), app.live.session.backend.info).over
        assert over.speedup_measured is not None and over.speedup_spread is not None
        expected = f"{over.speedup_measured:.2f}× ± {over.speedup_spread:.2f}"
        gauge = app.live.query_one("#g-speedup", StatGauge)
        await wait_until(pilot, lambda: gauge.value == expected)
        assert "±" in gauge.render().plain


async def test_the_compare_summary_shows_each_runs_speedup_with_its_spread() -> None:
    specs = [RunSpec(preset=p, seed=5, speed=0.0, max_rounds=120) for p in ("qwen3.6-mtp", "ngram")]
    backends = [make_backend(s) for s in specs]
    app = SpecviewApp(specs[0], backends[0], compare=backends)
    async with app.run_test(size=(140, 40)) as pilot:
        cmp = app.screen_stack[0]
        assert isinstance(cmp, CompareScreen)
        await wait_until(pilot, lambda: all(s.metrics.rounds == 120 for s in cmp.sessions))
        column = [spec.key for spec in gauges(SUMMARY)].index("speedup")
        table = cmp.query_one(SummaryTable)

        def shown() -> bool:
            cmp.refresh_summary()
            return all("±" in table.cell(i, column) for i in range(2))

        await wait_until(pilot, shown)
