"""A live run started from a Learn screen (Learn 9's `r`) is the run the next Learn screen shows."""

from __future__ import annotations

import pytest

from specview.features.learn.app import LearnApp
from specview.features.learn.mask_screen import MaskScreen
from specview.features.learn.registry import lesson_named
from specview.features.learn.round_screen import LIVE, RoundScreen
from specview.features.live.screen import LiveScreen
from specview.texts.catalog import fill, text
from specview.widgets.prose import Prose
from tests.support.app_helpers import wait_until


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_run_started_on_learn_9_reaches_learn_3_and_5(lang: str) -> None:
    app = LearnApp(lesson_named("cases"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.run_preset("qwen3.6-mtp")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen))
        live = app.screen
        assert isinstance(live, LiveScreen)
        await wait_until(pilot, lambda: any(r.drafted for r in live.session.history), timeout=30)
        app.open_lesson(lesson_named("mask"))
        await pilot.pause()
        mask = app.screen
        assert isinstance(mask, MaskScreen) and mask.live
        said = [p.text for p in mask.query(Prose)]
        assert fill("learn.mask.live", lang, origin=text("origin.simulated", lang)) in said  # the run's round
        assert text("learn.mask.example", lang) not in said
        assert mask.run is not None and mask.run.last_round is not None
        assert len(mask.drafts) == mask.run.last_round.drafted
        await pilot.press("escape")
        app.open_lesson(lesson_named("round"))
        await pilot.pause()
        five = app.screen
        assert isinstance(five, RoundScreen) and five.source == LIVE
