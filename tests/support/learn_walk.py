"""Walking every Learn screen: each (screen, language, terminal size) opened as `specview learn N` opens it
and settled, with what the terminal shows as text.

Two ways, shared by the walker tests over the Learn screens:
- `opened` / `cases` / `cuts`: a screen mounted and drawn at one size (tests/app/test_learn_fit.py: no word
  cut short, the main result above the fold);
- `walk_screen`: as a reader does, its body read page by page to the end and (where asked) every value of
  every slider tried in turn (tests/app/test_learn_zh_latin.py: no Latin word outside the allowed list).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from textual.containers import VerticalScroll
from textual.pilot import Pilot

from specview.features.learn.app import LearnApp
from specview.features.learn.base import LearnScreen
from specview.features.learn.registry import lesson, lessons
from specview.widgets.slider import Slider
from tests.support.app_helpers import wait_until
from tests.support.catalog_walk import screen_text

LANGS = ("zh", "en")
SIZES = ((80, 24), (120, 40))

# A word cut short to fit (`␣thoug…`, `已缓…`): a letter or a CJK character right before "…" and a space,
# a border or the line's end after it. "1…16", "slots 3…7" and the legends' "… unseen" mark are no cut.
CUT = re.compile(r"[^\W\d_]…(?=\s|$|[│▏▕|])", re.MULTILINE)


def cases() -> list[tuple[int, str, tuple[int, int]]]:
    """Every Learn screen's number in each language at each size, for `pytest.mark.parametrize`."""
    return [(item.number, lang, size) for item in lessons() for lang in LANGS for size in SIZES]


@asynccontextmanager
async def opened(number: int, lang: str, size: tuple[int, int]) -> AsyncIterator[tuple[LearnApp, Pilot[None]]]:
    """Learn screen `number` in `lang` at `size`, mounted and drawn (llama-cpp taken as not installed, as the
    snapshots do, so its hint reads the same on every machine)."""
    app = LearnApp(lesson(number), lang=lang, llama_installed=False)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LearnScreen) and app.screen.is_mounted)
        for _ in range(3):  # the footer recomposes for its width after the first layout
            await pilot.pause()
        yield app, pilot


def cuts(shown: str) -> list[str]:
    """The lines of `shown` with a word cut short by "…"."""
    return [line.strip() for line in shown.splitlines() if CUT.search(line)]


@dataclass(frozen=True, slots=True)
class Stop:
    """One thing the walker saw: which screen, how it got there (a slider's value, a page) and the text."""

    number: int
    where: str
    text: str


def numbers() -> list[int]:
    """Every Learn screen's number, in order."""
    return [item.number for item in lessons()]


async def walk_screen(number: int, lang: str, size: tuple[int, int], *, sliders: bool = True) -> AsyncIterator[Stop]:
    """Screen `number` in `lang` at `size`: every page of its body as it opens, then (with `sliders`) every value
    of each slider in turn (the others at their defaults; each slider back where it was before the next)."""
    app = LearnApp(lesson(number), lang=lang)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        body = screen.query_one("#learn-body", VerticalScroll)

        async def pages(where: str) -> AsyncIterator[Stop]:
            body.scroll_home(animate=False, immediate=True)
            await pilot.pause()
            seen = -1
            while seen < body.scroll_y:
                seen = int(body.scroll_y)
                yield Stop(number, f"{where} · y {seen}", screen_text(app))
                body.scroll_to(y=seen + max(1, body.size.height - 1), animate=False, immediate=True)
                await pilot.pause()

        async for stop in pages("opened"):
            yield stop
        if not sliders:
            return
        for slider in list(screen.query(Slider)):
            start = slider.index
            for value in slider.values:
                slider.select(value, notify=True)
                await pilot.pause()
                yield Stop(number, f"{slider.id} = {value}", screen_text(app))
            slider.select(slider.values[start], notify=True)
            await pilot.pause()
