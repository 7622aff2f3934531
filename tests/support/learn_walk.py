"""Walking every Learn screen: each (screen, language, terminal size) once, opened as `specview learn N` opens
it and settled, with what the terminal shows as text (tests/app/test_learn_fit.py; a walker over the
screens' words can take the same cases)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from textual.pilot import Pilot

from specview.features.learn.app import LearnApp
from specview.features.learn.base import LearnScreen
from specview.features.learn.registry import lesson, lessons
from tests.support.app_helpers import wait_until

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
