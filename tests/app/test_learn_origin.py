"""A live run's numbers on a Learn screen carry the run's own origin (the gauges' words: measured,
simulated, recorded), passed with the run (RunContext.origin): a simulated run's are never "measured"."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from specview.features.learn.app import LearnApp
from specview.features.learn.explain.context import RunContext
from specview.features.learn.lossless_screen import LosslessScreen
from specview.features.learn.mask_screen import MaskScreen
from specview.features.learn.registry import lesson_named
from specview.features.learn.speedup_screen import SpeedupScreen
from specview.features.learn.tags import origin_word
from specview.kernel.backend import Origin
from specview.kernel.events import TokenEvent, TokenStatus
from specview.texts.catalog import text
from specview.widgets.prose import Prose
from tests.support.app_helpers import sim_app, wait_finished

WORDS = {"en": ("simulated", "measured"), "zh": ("模拟", "实测")}


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_i_on_a_simulated_token_says_simulated_not_measured(lang: str) -> None:
    simulated, measured = WORDS[lang]
    app = sim_app(max_rounds=10, seed=1, lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        assert app.live.learn_context().origin is Origin.SIMULATED
        await pilot.press("left")
        await pilot.press("i")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LosslessScreen) and screen.run is not None and screen.run.token is not None
        legend = screen.query_one(".learn-legend", Prose).text
        assert legend.startswith(simulated) and measured not in legend
        assert f"{screen.run.token.p:.3f}" in legend


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_t_from_a_simulated_run_shows_a_simulated_tau(lang: str) -> None:
    simulated, measured = WORDS[lang]
    app = sim_app(max_rounds=40, seed=2, lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        snap = app.live.session.metrics.snapshot()
        await pilot.press("t")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SpeedupScreen) and screen.measured is not None
        shown = str(screen.query_one("#measured", Static).render())
        assert f"{snap.tau:.3f}" in shown
        assert simulated in shown and measured not in shown
        assert measured not in screen.query_one("#hint", Prose).text


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_mask_screen_names_a_simulated_runs_round_simulated(lang: str) -> None:
    simulated, measured = WORDS[lang]
    app = sim_app(max_rounds=12, seed=4, lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        app.open_lesson(lesson_named("mask"))
        await pilot.pause()
        mask = app.screen
        assert isinstance(mask, MaskScreen) and mask.live
        said = [p.text for p in mask.query(Prose)]
        assert any(s.startswith(simulated) for s in said) and not any(measured in s for s in said)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("origin", [Origin.MEASURED, Origin.SIMULATED, Origin.RECORDED, None])
async def test_learn_6_says_the_origin_the_run_passed(origin: Origin | None, lang: str) -> None:
    token = TokenEvent(7, "cat", TokenStatus.ACCEPTED, position=0, p=0.92, q=0.5)
    run = RunContext(backend="sim", origin=origin, token=token)
    app = LearnApp(lesson_named("lossless"), lang=lang, run=run)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        legend = app.screen.query_one(".learn-legend", Prose).text
        word = origin_word(origin, lang)
        assert word == text(f"origin.{origin.value if origin else 'assumed'}", lang)  # the gauges' words
        assert legend.startswith(word) and "0.920" in legend
