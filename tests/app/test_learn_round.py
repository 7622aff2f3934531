"""Learn 5 without a live run: the canned round's three verdicts, and one `n` per step, each step
showing only what has happened by then."""

from __future__ import annotations

import pytest

from specview.features.learn.app import LearnApp
from specview.features.learn.explain.canned import DRAFTS, canned_round
from specview.features.learn.registry import lesson_named
from specview.features.learn.round_screen import CANNED, RoundScreen
from specview.kernel.events import TokenStatus
from specview.texts.catalog import text
from specview.widgets.grid import Grid
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider
from specview.widgets.token_view import TokenView


def test_the_canned_round_keeps_at_p_over_q_keeps_by_its_draw_and_refuses_by_it() -> None:
    rnd = canned_round(["a", "b", "c", "d", "e"])
    judged = [t for t in rnd.tokens if t.status in (TokenStatus.ACCEPTED, TokenStatus.REJECTED)]
    kinds = []
    for t in judged:
        assert t.p is not None and t.q is not None
        if t.p >= t.q:
            kinds.append("kept, no draw")
            assert t.u is None and t.status is TokenStatus.ACCEPTED
        else:
            assert t.u is not None and 0 < t.p / t.q < 1  # a fractional min(1, p/q): the draw decides
            kinds.append("kept by u" if t.u < t.p / t.q else "refused by u")
            assert (t.status is TokenStatus.ACCEPTED) == (t.u < t.p / t.q)
    assert kinds == ["kept, no draw", "kept by u", "refused by u"]
    fix = rnd.tokens[-1]
    assert fix.status is TokenStatus.CORRECTED and fix.text == "e"
    assert fix.residual_p == pytest.approx((fix.p - fix.q) / fix.residual)  # type: ignore[operator]
    assert [t.text for t in rnd.discarded] == ["d"] and rnd.drafted == len(DRAFTS)
    assert rnd.accepted == 2 and rnd.emitted == 3


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_each_n_reveals_one_step_and_only_what_has_happened(lang: str) -> None:
    app = LearnApp(lesson_named("round"), lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RoundScreen) and screen.source == CANNED

        def grid() -> str:
            return str(screen.query_one(Grid).render())

        def lit() -> list[int]:
            return [i for i in range(4) if screen.query_one(f"#step-{i}", Prose).has_class("-on")]

        step4 = screen.query_one("#step-3", Prose)
        kept, fix = text("learn.round.verdict.accepted", lang), text("learn.round.corrected", lang)
        # 1 · drafts and their q only
        assert lit() == [0] and "0.410" in grid() and "0.580" not in grid() and "0.310" not in grid()
        assert kept not in grid() and text("learn.round.step.finish", lang) in step4.text
        await pilot.press("n")
        # 2 · p and min(1, p/q) known; no draw, no verdict yet
        assert lit() == [1] and "0.580" in grid() and "0.750" in grid() and "0.239" in grid()
        assert "0.310" not in grid() and kept not in grid()
        await pilot.press("n")
        # 3 · the draws and the verdicts; the target's own token not yet
        assert lit() == [2] and "0.310" in grid() and "0.680" in grid() and kept in grid()
        assert fix not in grid() and screen.query_one(TokenView).token_count == 0
        assert text("learn.round.step.finish", lang) in step4.text  # step 4 has not said how it ends
        await pilot.press("n")
        # 4 · the corrected token; the stream (two kept, one struck, the fix) and the totals
        assert lit() == [3] and fix in grid() and "0.440" in grid()
        assert "norm(max(0,\u00a0p\u00a0−\u00a0q))" in step4.text
        assert screen.query_one(TokenView).token_count == 4 and screen.numbers()["rounds"] == 1
        await pilot.press("n")  # one round only: it starts again
        assert lit() == [0] and screen.query_one(TokenView).token_count == 0


@pytest.mark.parametrize("preset", ["ngram", "suffix"])
async def test_a_lookup_drafter_is_said_to_copy_not_to_sample(preset: str) -> None:
    """Every method of the lookup school (n-gram, suffix: their method units say so) is a drafter that
    copies from the context; suffix was told as a sampled draft when only the id "ngram" was checked."""
    app = LearnApp(lesson_named("round"), lang="en")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RoundScreen)
        screen.query_one("#preset", Slider).select(preset, notify=True)
        await pilot.pause()
        source = screen.query_one("#source", Prose).text
        assert "copies tokens from the context" in source and "q mixes p" not in source
