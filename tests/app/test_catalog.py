"""Every string a user reads comes from the catalogs, in both languages.

The walker opens every screen (live with a token selected, help, preset picker, run-it-for-real,
Learn index, every Learn screen over a finished run and on its own, compare) in en and zh, reads
the words on the terminal, and fails on any word that is in no catalog text of that language and
is not data (the preset shown, the stream's text, run labels, key names, accelerator and model
names, notation). In zh a hard-coded English string stands out at once.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from specview.backends.factory import make_backend
from specview.backends.remote.registry import engines
from specview.catalog.hardware import ACCELERATORS, MODEL_SHAPES
from specview.catalog.presets import Preset, load_presets
from specview.features.learn.app import LearnApp
from specview.features.learn.base import LearnScreen
from specview.features.learn.index_screen import LearnIndex
from specview.features.learn.registry import lessons
from specview.features.live.app import SpecviewApp
from specview.features.live.preset_screen import PresetScreen
from specview.features.live.real_run import real_runs
from specview.features.live.real_run_screen import RealRunScreen
from specview.kernel.gauges import GAUGES
from specview.kernel.langs import LANGS
from specview.kernel.runspec import RunSpec
from specview.texts.catalog import catalog, languages
from specview.tui.app import BaseApp
from specview.tui.help_screen import HelpScreen
from specview.tui.keymap import bound_ids
from specview.widgets.status_line import StatusLine
from tests.support.app_helpers import sim_app, wait_finished, wait_until
from tests.support.catalog_walk import fields, strays, words

# Units and symbols of the formulas and shapes the Learn screens draw (the same in every language)
NOTATION = {"TB", "GB", "MB", "FLOP", "TFLOP", "GFLOP", "Norm"}


def preset_words(preset: Preset) -> set[str]:
    texts = [preset.id, preset.label, preset.notes, preset.hardware, preset.method,
             *preset.run.values(), *(r.watch or "" for r in real_runs(preset, engines())),
             *(s.title for s in preset.sources)]
    return words(" ".join(texts))


@pytest.mark.parametrize("lang", LANGS)
async def test_every_screen_shows_only_catalog_texts_and_data(lang: str) -> None:
    app = sim_app("qwen3.6-mtp", max_rounds=30, lang=lang)
    found: dict[str, set[str]] = {}
    async with app.run_test(size=(130, 40)) as pilot:
        await wait_finished(pilot)
        await pilot.press("left")  # the token inspector
        await pilot.pause()
        found["live"] = strays(app, lang)
        for key, screen, name in (("f1", HelpScreen, "help"), ("p", PresetScreen, "preset picker"),
                                  ("x", RealRunScreen, "run it for real"), ("l", LearnIndex, "learn index")):
            await pilot.press(key)
            await wait_until(pilot, lambda screen=screen: isinstance(app.screen, screen))
            await pilot.pause()
            extra = set().union(*(preset_words(p) for p in load_presets().values())) if key in "px" else set()
            found[name] = strays(app, lang, extra)
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
    specs = [RunSpec(preset=p, seed=5, speed=0.0, max_rounds=30, lang=lang) for p in ("qwen3.6-mtp", "ngram")]
    compare = SpecviewApp(specs[0], make_backend(specs[0]), lang=lang, compare=[make_backend(s) for s in specs])
    async with compare.run_test(size=(130, 40)) as pilot:
        await _compare_finished(pilot, lang)
        found["compare"] = strays(compare, lang)
    assert {name: sorted(w) for name, w in found.items() if w} == {}
    assert len(found) == 6


def learn_data_words() -> set[str]:
    """What the Learn screens show that is data or notation, not interface: chips and model shapes
    (names from their makers), preset ids, tensor and formula notation."""
    names = " ".join(f"{item.label} {item.source}" for item in (*ACCELERATORS, *MODEL_SHAPES))
    return words(names) | set().union(*(preset_words(p) for p in load_presets().values())) | NOTATION


@pytest.mark.parametrize("lang", LANGS)
async def test_every_learn_screen_shows_only_catalog_texts_and_data(lang: str) -> None:
    """Each screen over a finished live run (its round, its numbers) and on its own (`specview learn`)."""
    found: dict[str, set[str]] = {}
    live = sim_app("qwen3.6-mtp", max_rounds=30, lang=lang)
    async with live.run_test(size=(130, 150)) as pilot:  # tall: every screen's whole body on the terminal
        await wait_finished(pilot)
        await _walk_learn(pilot, lang, found, "live")
    alone = LearnApp(None, lang=lang)
    async with alone.run_test(size=(130, 150)) as pilot:
        await wait_until(pilot, lambda: isinstance(alone.screen, LearnIndex))
        await _walk_learn(pilot, lang, found, "alone")
    assert {name: sorted(w) for name, w in found.items() if w} == {}
    assert len(found) == 3 * len(lessons())


async def _walk_learn(pilot: Pilot[None], lang: str, found: dict[str, set[str]], tag: str) -> None:
    app = pilot.app
    assert isinstance(app, BaseApp)
    extra, under = learn_data_words(), app.screen
    for item in lessons():
        app.open_lesson(item)
        await wait_until(pilot, lambda: isinstance(app.screen, LearnScreen))
        await pilot.pause()
        found[f"{tag} {item.slug}"] = strays(app, lang, extra)
        if tag == "alone":  # the help lists the screen's own keys (the same over a run)
            screen = app.screen
            await pilot.press("f1")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
            await pilot.pause()
            found[f"{item.slug} help"] = strays(app, lang, extra)
            await pilot.press("escape")
            await wait_until(pilot, lambda screen=screen: app.screen is screen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is under)


async def _compare_finished(pilot: Pilot[None], lang: str) -> None:
    app = pilot.app
    status = app.screen_stack[0].query_one(StatusLine)
    await wait_until(pilot, lambda: status.state == catalog(lang)["state.finished"])
    await pilot.pause()


def test_both_languages_have_every_key_with_the_same_fields() -> None:
    en, zh = catalog("en"), catalog("zh")
    assert languages() == LANGS
    assert sorted(set(en) ^ set(zh)) == []
    assert [key for key in en if fields(en[key]) != fields(zh[key])] == []


def test_every_gauge_and_binding_has_its_texts() -> None:
    en = catalog("en")
    for spec in GAUGES:
        assert {spec.label_id, spec.short_id, spec.help_id} <= set(en), spec.key
        assert (spec.note_id in en) == (spec.note is not None), spec.key
    assert sorted(bid for bid in bound_ids() if f"keys.{bid}.label" not in en or f"keys.{bid}.tip" not in en) == []
