"""What issue 11 puts on screen: discarded drafts, round boundaries, two-phase steps, a legend that
explains every mark, and gauges that say where each number comes from and which span it covers."""

from __future__ import annotations

import pytest

from specview.kernel.events import TokenStatus
from specview.kernel.langs import LANGS
from specview.texts.catalog import fill, text
from specview.tui.gauges import LEGEND
from specview.widgets.gauge_strip import GaugeStrip
from specview.widgets.legend import Legend, sample
from specview.widgets.stat_gauge import StatGauge
from specview.widgets.token_layout import MARKS, ROUND_SEPARATOR
from tests.support.app_helpers import sim_app, still, token_view, wait_finished, wait_until
from tests.support.catalog_walk import screen_text

D, U = TokenStatus.DISCARDED, TokenStatus.UNDECIDED


def gauge_note(app: object, key: str) -> str:
    return app.live.query_one(f"#g-{key}", StatGauge).note  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", LANGS)
async def test_the_legend_fits_at_80x24_and_explains_every_mark(lang: str) -> None:
    app = sim_app("glm-5.2-mtp", max_rounds=40, lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_finished(pilot)
        legend = app.live.query_one(Legend)
        assert 0 < legend.region.height <= 2 and legend.region.width <= 80
        shown = screen_text(app, legend.region)
        for status, (pre, post) in MARKS.items():  # ▸ ⁺ ˣ ˀ
            if status is not TokenStatus.LOST:  # a tree's branches: a tree run's legend (test_tree_view)
                assert (pre or post) in shown
        assert ROUND_SEPARATOR in shown
        for kind in LEGEND:
            assert sample(kind, text(f"token.legend.{kind}", lang)) in shown.replace("\n", " ")
        # the side panel is folded into one line at 80 columns: it still says where the numbers come from
        strip = app.live.query_one(GaugeStrip).render().plain
        assert strip.endswith(" · ".join(text(f"origin.{w}", lang) for w in ("simulated", "assumed")))


async def test_discarded_drafts_show_marked_and_d_hides_them() -> None:
    app = sim_app("glm-5.2-mtp", max_rounds=60)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        view = token_view(app)
        discarded = [i for i, t in enumerate(view.tokens) if t.status is D]
        assert discarded, "GLM's 7-step rounds leave drafts after a rejection"
        # each run of discarded drafts follows its rejected draft, before the correction
        for i in discarded:
            assert view.tokens[i - 1].status in (TokenStatus.REJECTED, D)
        rows = screen_text(app, view.region)
        text_before, count = view.plain_text(), view.token_count
        assert "ˣ" in rows
        await pilot.press("d")
        assert D in view.hidden and view.token_count == count and view.plain_text() == text_before
        await wait_until(pilot, lambda: "ˣ" not in screen_text(app, view.region))  # redrawn without them
        await pilot.press("d")
        assert D not in view.hidden


async def test_b_shows_where_each_round_begins() -> None:
    app = sim_app(max_rounds=30)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        view = token_view(app)
        assert not view.separators
        await pilot.press("b")
        assert view.separators
        # redrawn with a bar before each of the last rounds on screen
        await wait_until(pilot, lambda: screen_text(app, view.region).count(ROUND_SEPARATOR) >= 5)
        await pilot.press("b")
        assert not view.separators


async def test_step_in_two_phases_drafts_first_then_the_verdicts() -> None:
    app = sim_app("glm-5.2-mtp", speed=50.0)
    async with app.run_test(size=(120, 36)) as pilot:
        view = token_view(app)
        await wait_until(pilot, lambda: view.token_count > 20)
        await pilot.press("space", "v")
        assert app.live.pump.two_phase
        await wait_until(pilot, lambda: still(app))  # the round in flight drawn, the producer parked
        rounds = app.live.session.metrics.rounds
        count = view.token_count
        await pilot.press("n")
        await wait_until(pilot, lambda: view.token_count > count)
        pending = view.tokens[count:]
        assert all(t.status is U for t in pending) and len(pending) == 7  # γ 7, verdicts not shown yet
        assert app.live.pump.verdict_pending
        await pilot.press("n")  # the verdicts, not another round
        # still again: had this step asked for a round, it would be owed or drawn by then
        await wait_until(pilot, lambda: still(app))
        assert app.live.session.metrics.rounds == rounds + 1
        shown = view.tokens[count:]
        assert U not in {t.status for t in shown} and not app.live.pump.verdict_pending
        assert {t.status for t in shown} <= {TokenStatus.ACCEPTED, TokenStatus.REJECTED, D, TokenStatus.CORRECTED,
                                            TokenStatus.BONUS}
        assert len([t for t in shown if t.status in (TokenStatus.ACCEPTED, TokenStatus.REJECTED, D)]) == 7
        await pilot.press("v", "n")  # one phase again: n shows a whole round
        await wait_until(pilot, lambda: app.live.session.metrics.rounds == rounds + 2)
        await wait_until(pilot, lambda: still(app))
        assert U not in {t.status for t in view.tokens}


async def test_gauges_say_where_numbers_come_from_and_which_span() -> None:
    app = sim_app("glm-5.2-mtp", max_rounds=80)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        snap = app.live.session.metrics.snapshot()
        # the run's last numbers are drawn: the run's τ beside the run's theory
        await wait_until(pilot, lambda: f"run {snap.tau:.2f} · theory" in gauge_note(app, "tau"))
        side = app.live.query_one("#side")
        assert str(side.border_title) == fill("live.span", "en", n=64)  # values: the window; (run): the whole run
        assert "(run)" in app.live.query_one("#g-speedup", StatGauge).label
        # GLM's c and forward time are assumptions: tok/s, c and the speedup say so
        assert gauge_note(app, "tokens_per_second").startswith("simulated · assumed")
        assert gauge_note(app, "draft_cost").startswith("simulated · assumed")
        assert gauge_note(app, "speedup").startswith("assumed: verify ≈ 1 forward")
        assert text("live.yield_line") in screen_text(app)
        assert "assumed: flat" in gauge_note(app, "verify_ratio")


def test_bars_that_rise_with_distance_are_explained_only_beyond_noise() -> None:
    from specview.tui.gauges import rises

    assert not rises([0.767, 0.843, 0.825], [300, 230, 194])  # an early run of a flat 0.83 preset: noise
    assert rises([0.56, 0.57, 0.625, 0.75], [20_000, 11_200, 6_400, 4_000])  # Medusa's nested-event bars
    assert not rises([0.9, 0.8, 0.7], [5000, 4500, 3600])


async def test_medusa_bars_rise_and_the_screen_says_why() -> None:
    app = sim_app("medusa", max_rounds=4000)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        await wait_until(pilot, lambda: str(app.live.query_one("#rising").render()) == text("live.rising"))
