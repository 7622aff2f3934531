"""Learn's words where a number or a choice changes them: a chosen verdict on screen 4 names the kind of
the target's own token (no placeholder shown as a token), one draft on screen 5 is said in the singular,
and screens 3 and 4 without a run show an example that reads as a sentence."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from specview.features.learn.app import LearnApp
from specview.features.learn.cache_screen import CacheScreen
from specview.features.learn.explain.rounds import label
from specview.features.learn.mask_screen import MaskScreen
from specview.features.learn.registry import lesson_named
from specview.features.learn.round_screen import RoundScreen
from specview.texts.catalog import text
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("chosen", "kind"), [(0, "corrected"), ("all", "bonus")])
async def test_a_chosen_verdict_names_the_kind_of_the_targets_own_token(lang: str, chosen: object, kind: str) -> None:
    app = LearnApp(lesson_named("cache"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CacheScreen)
        slider = screen.query_one(Slider)
        slider.select(len(screen.drafts) if chosen == "all" else chosen, notify=True)
        for _ in range(5):  # to the commit
            await pilot.press("n")
        said = str(screen.query_one("#numbers", Static).render())
        word = text(f"glossary.{kind}.word", lang)
        placeholder = text(f"learn.cache.{kind}", lang)  # the slot's label ("fix", "额外"), not a token
        assert f"({word})" in said or f"（{word}）" in said
        assert not said.replace("\n", " ").count(f"{placeholder} is the target") and f"{placeholder} 是目标" not in said


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_one_draft_is_said_in_the_singular(lang: str) -> None:
    app = LearnApp(lesson_named("round"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RoundScreen)
        screen.query_one(Slider).select("deepseek-v3-mtp", notify=True)  # γ 1
        await pilot.pause()
        assert screen.numbers()["gamma"] == 1
        steps = " ".join(screen.query_one(f"#step-{i}", Prose).text for i in range(2))
        assert text("learn.round.step.draft_one", lang) in steps and text("learn.round.step.score_one", lang) in steps
        for plural in ("one after another", "1 tokens", "1 drafts", "一个接一个", "全部 1 个"):
            assert plural not in steps


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("slug", ["mask", "cache"])
async def test_screens_3_and_4_without_a_run_show_the_example_sentence(slug: str, lang: str) -> None:
    """Screen 5's example round, its words a sentence (learn.round.example_before, then the drafts), not the
    simulator's random words."""
    before = text("learn.round.example_before", lang).split("|")
    drafts = text("learn.round.canned_words", lang).split("|")[:-1]
    app = LearnApp(lesson_named(slug), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert not screen.live  # type: ignore[attr-defined]
        assert [label(d) for d in screen.drafts] == [label(d) for d in drafts]  # type: ignore[attr-defined]
        if isinstance(screen, MaskScreen):
            assert screen.pending == label(before[-1]) and screen.context == [label(t) for t in before[-4:-1]]
        said = [p.text for p in screen.query(Prose)]
        assert text(f"learn.{slug}.example", lang) in said
