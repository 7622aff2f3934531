"""Walking every Learn screen as a reader does: each screen opened alone at a terminal size, its body
read page by page to the end, and (where asked) every value of every slider tried in turn; what the
terminal shows at each stop is handed back as text (catalog_walk.screen_text).

Walker tests over the Learn screens share it: the zh screens' Latin words (tests/app/test_learn_zh_latin.py)
and any other check that wants "every screen, everything on it".
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from textual.containers import VerticalScroll

from specview.features.learn.app import LearnApp
from specview.features.learn.registry import lesson, lessons
from specview.widgets.slider import Slider
from tests.support.catalog_walk import screen_text

SIZES = ((120, 40), (80, 24))


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
