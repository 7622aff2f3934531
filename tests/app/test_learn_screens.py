"""Every registered Learn screen under run_test() in zh and en: each control moves the shown numbers, and
they are the values its lesson's own checks work out again from the lesson's formula for the controls read back
from the screen (features/learn/checks.py): a new screen brings its checks, this file lists no lesson."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

import specview.features.learn.base as learn_base
from specview.features.learn.app import LearnApp
from specview.features.learn.base import LearnScreen
from specview.features.learn.checks import LessonChecks
from specview.features.learn.registry import Lesson, lesson, lessons
from specview.texts.catalog import catalog, text
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider

MISSING: list[tuple[str, str]] = []


@pytest.fixture(autouse=True)
def record_missing_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalog walker: every text a screen asks for must exist in the screen's language."""

    def checked(key: str, lang: str = "en") -> str:
        if key not in catalog(lang):
            MISSING.append((lang, key))
        return text(key, lang)

    monkeypatch.setattr(learn_base, "text", checked)


def checks_of(item: Lesson) -> LessonChecks:
    assert item.checks is not None, f"Learn {item.number} ({item.slug}) declares no checks beside its Lesson"
    return item.checks


def check(screen: LearnScreen) -> dict[str, Any]:
    """The screen shows exactly the core numbers for its controls; returns them."""
    number, checks = screen.lesson.number, checks_of(screen.lesson)
    got = screen.numbers()
    for what, value, want in checks.independent(screen, got):
        assert value == want, (number, what)
    for where, value in checks.probes(screen, got):
        assert value in where, (number, value, where)
    return got


async def open_screen(pilot: Pilot[None]) -> LearnScreen:
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, LearnScreen)
    return screen


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("number", [item.number for item in lessons()])
async def test_screen_controls_move_the_core_numbers(number: int, lang: str) -> None:
    MISSING.clear()
    app = LearnApp(lesson(number), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(pilot)
        assert screen.query_one("#learn-idea", Prose).text == text(lesson(number).idea_key, lang)
        before = check(screen)
        checks = checks_of(lesson(number))
        for what, value, want in checks.at_defaults(before):
            assert value == want, (number, what)
        for slider in list(screen.query(Slider)):
            if not slider.display:  # a control this setting has not got (Learn 8's width of a separate drafter)
                continue
            slider.focus()
            at_end = slider.index == len(slider.values) - 1
            await pilot.press("left" if at_end else "right")
            await pilot.pause()
            now = check(screen)
            assert now != before, f"moving {slider.id} changed nothing"
            before = now
        if checks.before_keys is not None:
            checks.before_keys(screen)
        for key in checks.keys:
            await pilot.press(key)
            await pilot.pause()
            now = check(screen)
            assert now != before, f"{key} changed nothing"
            before = now
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LearnScreen)
    assert MISSING == []


def test_every_learn_key_is_in_both_languages_with_the_same_placeholders() -> None:
    import re

    en, zh = ({k: v for k, v in catalog(lang).items() if k.split(".")[0] in ("learn", "learnerr")}
              for lang in ("en", "zh"))
    assert sorted(en) == sorted(zh)
    field = re.compile(r"\{(\w+)")
    for key in en:
        assert sorted(set(field.findall(en[key]))) == sorted(set(field.findall(zh[key]))), key
