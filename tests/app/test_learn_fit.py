"""Every Learn screen in zh and en at 80×24 and 120×40: no word cut short by "…" (a legend, a label, a
header), the screen's main result above the fold, and the keys that move between screens (pgdn/pgup,
]/[) working on every screen, in the footer and in F1."""

from __future__ import annotations

import pytest

from specview.compat.textual_compat import FooterKey
from specview.features.learn.base import LearnScreen
from specview.features.learn.footer import LearnFooter, key_name
from specview.features.learn.registry import lesson_named, lessons
from specview.features.learn.verify_screen import VerifyScreen
from specview.features.live.screen import LiveScreen
from specview.texts.catalog import text
from specview.tui.help_screen import HelpColumns, HelpScreen
from specview.widgets.column_chart import ColumnChart
from tests.support.app_helpers import sim_app, wait_finished, wait_until
from tests.support.catalog_walk import screen_text
from tests.support.learn_walk import LANGS, cases, cuts, opened

# the widget that holds what a screen works out (its first line is the result a reader looks for)
RESULT = {"memory": "numbers", "verify": "numbers", "mask": "numbers", "cache": "numbers", "round": "numbers",
          "lossless": "numbers", "mtp": "survival", "fusion": "numbers", "cases": "cases", "speedup": "numbers",
          "load": "numbers"}


def test_the_walk_covers_every_screen() -> None:
    assert {item.slug for item in lessons()} <= set(RESULT)


# screens that step through a round with `n`: each step shows other words (a slot's state, a verdict)
STEPS = {"cache": 5, "round": 4, "mtp": 3}


@pytest.mark.parametrize(("number", "lang", "size"), cases())
async def test_no_word_is_cut_short(number: int, lang: str, size: tuple[int, int]) -> None:
    async with opened(number, lang, size) as (app, pilot):
        assert cuts(screen_text(app)) == [], (number, lang, size)
        screen = app.screen
        assert isinstance(screen, LearnScreen)
        for step in range(STEPS.get(screen.lesson.slug, 0)):
            await pilot.press("n")
            await pilot.pause()
            assert cuts(screen_text(app)) == [], (number, lang, size, step + 1)
    # the whole body at the same width: what a reader scrolls to
    async with opened(number, lang, (size[0], 300)) as (app, _):
        assert cuts(screen_text(app)) == [], (number, lang, size[0])


@pytest.mark.parametrize(("number", "lang", "size"), cases())
async def test_the_main_result_is_above_the_fold(number: int, lang: str, size: tuple[int, int]) -> None:
    async with opened(number, lang, size) as (app, _):
        screen = app.screen
        assert isinstance(screen, LearnScreen)
        result = screen.query_one(f"#{RESULT[screen.lesson.slug]}")
        body = screen.query_one("#learn-body")
        assert result.display and result.region.height > 0
        assert result.region.y < body.region.bottom, (number, lang, size, result.region, body.region)


@pytest.mark.parametrize("lang", LANGS)
async def test_pgdn_pgup_and_brackets_move_through_every_screen_and_stop_at_the_ends(lang: str) -> None:
    numbers = [item.number for item in lessons()]
    async with opened(numbers[0], lang, (80, 24)) as (app, pilot):
        def at() -> int:
            screen = app.screen
            assert isinstance(screen, LearnScreen)
            return screen.lesson.number

        depth = len(app.screen_stack)
        await pilot.press("pageup")  # the first screen: nothing before it
        await pilot.pause()
        assert at() == numbers[0]
        for i, number in enumerate(numbers[1:]):  # whatever has focus there (a slider, a grid)
            await pilot.press("pagedown" if i % 2 == 0 else "right_square_bracket")
            await wait_until(pilot, lambda n=number: at() == n)  # type: ignore[misc]
            assert len(app.screen_stack) == depth  # in place of the last: esc still goes back to what was under
        await pilot.press("pagedown")
        await pilot.pause()
        assert at() == numbers[-1]
        for i, number in enumerate(reversed(numbers[:-1])):
            await pilot.press("pageup" if i % 2 == 0 else "left_square_bracket")
            await wait_until(pilot, lambda n=number: at() == n)  # type: ignore[misc]


async def test_shift_pgdn_still_scrolls_a_long_screen() -> None:
    async with opened(5, "en", (80, 24)) as (app, pilot):
        body = app.screen.query_one("#learn-body")
        assert body.max_scroll_y > 0
        await pilot.press("shift+pagedown")
        await wait_until(pilot, lambda: body.scroll_y > 0)
        await pilot.press("shift+pageup")
        await wait_until(pilot, lambda: body.scroll_y == 0)
        assert isinstance(app.screen, LearnScreen) and app.screen.lesson.number == 5


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("number", [item.number for item in lessons()])
async def test_the_footer_at_80x24_keeps_the_ways_to_move(number: int, lang: str) -> None:
    async with opened(number, lang, (80, 24)) as (app, pilot):
        footer = app.screen.query_one(LearnFooter)
        await wait_until(pilot, lambda: any(key_name(k) == "help" for k in footer.query(FooterKey)))
        keys = list(footer.query(FooterKey))
        names = {key_name(k) for k in keys}
        assert {"pop_screen", "next_lesson", "learn", "help"} <= names, (number, lang, names)
        move = next(k for k in keys if key_name(k) == "next_lesson")
        assert move.key_display == "pgup/pgdn" and move.description == text("learn.footer.move", lang)
        assert all(k.region.right <= footer.region.right for k in keys)


@pytest.mark.parametrize("lang", LANGS)
async def test_f1_lists_the_keys_to_the_next_and_previous_screen(lang: str) -> None:
    async with opened(4, lang, (120, 40)) as (app, pilot):
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        lines = next(w for w in app.screen.query(HelpColumns) if w.id == "help-keys").lines(100)
        joined = "\n".join(lines)
        for keys, tip in (("pgdn / ]", "keys.learn.next.tip"), ("pgup / [", "keys.learn.previous.tip"),
                          ("shift+pgdn", "keys.learn.page_down.tip")):
            assert any(line.strip().startswith(keys) for line in lines), joined
            assert "".join(text(tip, lang).split()) in "".join(joined.split())


async def test_screen_2_with_a_measured_curve_keeps_its_log_axis_labels_apart() -> None:
    async with opened(2, "en", (80, 40)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, VerifyScreen)
        screen.measured = [0.01 * (1 + 0.05 * k) for k in range(16)]  # k = 1…16, as `m` measures them
        screen.refresh_numbers()
        await pilot.pause()
        rows = str(screen.query_one(ColumnChart).render()).splitlines()
        # two columns side by side at each k: the labels still one apart, the bend (▲) its own column
        assert rows[-2].split() == ["└", "1", "2", "4", "8", "16", "32", "64", "128", "256", "295", "512"]
        assert rows[-1].index("▲") in range(rows[-2].index("295"), rows[-2].index("295") + 3)
        assert "▒" in "".join(rows)


async def test_moving_over_a_live_run_keeps_the_run_and_esc_goes_back_to_it() -> None:
    app = sim_app(max_rounds=5)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_finished(pilot)
        app.open_lesson(lesson_named("mask"))
        await wait_until(pilot, lambda: isinstance(app.screen, LearnScreen))
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: isinstance(app.screen, LearnScreen) and app.screen.lesson.slug == "cache")
        assert isinstance(app.screen, LearnScreen) and app.screen.run is not None  # the run's own last round
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen))
