"""The Learn scaffold: the index lists every lesson, each opens, `learn N --json` prints its numbers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from specview.features.learn.app import LearnApp
from specview.features.learn.explain.speedup import speedup_numbers
from specview.features.learn.index_screen import LearnIndex
from specview.features.learn.lossless_screen import LosslessScreen
from specview.features.learn.registry import lesson_named, lessons
from specview.texts.catalog import text
from specview.widgets.bindings import key_lines
from specview.widgets.prose import Prose


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_index_lists_every_lesson_and_opens_one(lang: str) -> None:
    app = LearnApp(None, lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LearnIndex)
        listing = app.screen.query_one("#learn-list")
        assert listing.option_count == len(lessons())  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        first = lessons()[0]
        assert type(app.screen) is first.screen
        shown = app.screen.query_one("#learn-idea", Prose).text
        assert shown == text(first.idea_key, lang)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LearnIndex) and app.screen is app.screen_stack[0]


def test_learn_json_prints_the_core_numbers() -> None:
    out = subprocess.run([sys.executable, "-m", "specview", "learn", "10", "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == speedup_numbers()


def test_unknown_lesson_is_one_line_and_exit_2() -> None:
    out = subprocess.run([sys.executable, "-m", "specview", "learn", "98", "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.startswith("specview: error: there is no Learn screen 98")
    assert "Traceback" not in out.stderr


async def test_learn_keys_speak_the_language_and_follow_the_keymap() -> None:
    app = LearnApp(lesson_named("lossless"), lang="zh", keymap={"learn.lossless.sample": "d"})
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LosslessScreen)
        footer = {a.binding.id: (key, a.binding.description) for key, a in screen.active_bindings.items()
                  if a.binding.show}
        assert footer["learn.lossless.sample"] == ("d", text("keys.learn.lossless.sample.label", "zh"))
        assert footer["learn.back"][1] == "返回" and footer["learn.lossless.explain"][1] == "为什么？"
        # the focused slider's own keys are translated too (the help lists them)
        lines = {line.id: line for line in key_lines([screen.focused or screen])}
        assert lines["slider.more"].keys == ("→",) and lines["slider.more"].label == "增大"
        await pilot.press("s")
        assert not screen.sampled, "s no longer samples"
        await pilot.press("d")
        assert screen.sampled
