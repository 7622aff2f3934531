"""The pictures in the docs (docs/images/*.svg): each one a real screen drawn by `run_test` and
`export_screenshot`, from a source that draws the same on every machine and every run.

Nothing in them may depend on the machine, the clock or the extras installed: the live view and
compare run the simulator with a fixed seed and a bounded run, waited on until every round is drawn
(the simulator's numbers are modelled, not measured); the fleet screen folds prepared snapshots at a
fixed wall clock, in UTC (the caller sets TZ); Learn takes a fixed preset list and believes the llama
extra installed, as its snapshots do. tests/app/test_doc_pictures.py compares each with the committed
file and writes it again when asked (`make screenshots`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from rich.cells import cell_len
from textual.app import App
from textual.pilot import Pilot

from specview.features.learn.app import LearnApp
from specview.features.learn.registry import lesson_named
from specview.features.watch.fleet_app import FleetApp
from specview.features.watch.screen.fleet import FleetScreen
from tests.support.app_helpers import sim_app, wait_finished, wait_until
from tests.support.compare_run import compare_app, compare_finished
from tests.support.fleet_snapshots import Snapshots, five
from tests.support.learn_presets import SNAPSHOT_PRESETS

FOLDER = Path(__file__).resolve().parents[2] / "docs" / "images"
TITLE = "specview"  # the window title drawn above every picture
UPDATE_ENV = "SPECVIEW_UPDATE_PICTURES"
HOW_TO_UPDATE = f"make screenshots (or {UPDATE_ENV}=1 pytest tests/app/test_doc_pictures.py)"

# Rich names each export's CSS classes `terminal-<checksum of the content>-…`: one changed cell renames
# every class. The committed files keep plain `terminal-…` names, so a diff shows only what changed.
_EXPORT_ID = re.compile(r"\bterminal-\d+-([\w-]+)")
# Rich sizes each run of text as one cell a character (textLength = cell width × len), so a browser squeezes
# Chinese, two cells a character, into half its width (Textualize/rich#2742): the zh picture would be
# unreadable. Each run is given the width its cells take on the terminal.
CELL_WIDTH = 20 * 0.61  # Rich's export: a 20px font, a cell 0.61 of it wide
_RUN_AT = re.compile(r'<text [^>]*?x="([\d.]+)"[^>]*?url\(#terminal-line-(\d+)\)">([^<]*)</text>')
_TEXT_RUN = re.compile(r'(<text [^>]*?textLength=")([\d.]+)("[^>]*>)([^<]*)(</text>)')


@dataclass(frozen=True)
class Picture:
    """One picture: its file name, the app it shows, the terminal size and what to wait for."""

    name: str
    make: Callable[[], App[None]]
    size: tuple[int, int]
    settle: Callable[[Pilot[None]], Awaitable[None]]

    @property
    def path(self) -> Path:
        return FOLDER / self.name


async def _round_stepped(pilot: Pilot[None]) -> None:
    """Learn's round, stepped to its last step: every verdict and the corrected token drawn."""
    await pilot.pause()
    for _ in range(3):
        await pilot.press("n")
    await pilot.pause()


async def _fleet_drawn(pilot: Pilot[None]) -> None:
    """The fleet screen: its one poll shown."""
    screen = pilot.app.screen
    assert isinstance(screen, FleetScreen)
    await wait_until(pilot, lambda: screen.snapshots_shown >= 1)
    await pilot.pause()


def _fleet() -> FleetApp:
    source = Snapshots(five())
    return FleetApp(source, source.fold, 3600.0)  # one poll: nothing changes while the picture is taken


def _learn() -> LearnApp:
    return LearnApp(lesson_named("round"), presets=SNAPSHOT_PRESETS, llama_installed=True)


PICTURES = (
    # 48 rounds fill the stream without scrolling it
    Picture("live.svg", lambda: sim_app(max_rounds=48, seed=7), (110, 30), wait_finished),
    Picture("live-zh.svg", lambda: sim_app(max_rounds=48, seed=7, lang="zh"), (110, 30), wait_finished),
    # as many rounds as keep each pane's text in its view (unscrolled): γ 7 writes twice the text of γ 3
    Picture("compare.svg", lambda: compare_app("qwen3.6-mtp", "glm-5.2-mtp", max_rounds=20), (110, 36),
            compare_finished),
    Picture("fleet.svg", _fleet, (130, 22), _fleet_drawn),
    Picture("learn.svg", _learn, (110, 30), _round_stepped),
)


def _fit_wide_run(match: re.Match[str]) -> str:
    text = html.unescape(match[4])
    cells = cell_len(text)
    if cells == len(text):
        return match[0]
    width = round(CELL_WIDTH * cells, 4)
    return f"{match[1]}{width:g}{match[3]}{match[4]}{match[5]}"


def normalise(svg: str) -> str:
    """The export without Rich's content checksum in its class names, wide characters given their cells."""
    return _TEXT_RUN.sub(_fit_wide_run, _EXPORT_ID.sub(r"terminal-\1", svg))


def screen_rows(svg: str) -> list[str]:
    """The picture's text, row by row, as the terminal showed it (colours and styles left out): what a
    failure message shows of a picture that changed."""
    rows: dict[int, list[tuple[int, str]]] = {}
    for match in _RUN_AT.finditer(svg):
        rows.setdefault(int(match[2]), []).append((round(float(match[1]) / CELL_WIDTH), html.unescape(match[3])))
    lines = []
    for row in sorted(rows):
        line = ""
        for cell, text in sorted(rows[row]):
            line += " " * max(0, cell - cell_len(line)) + text
        lines.append(line.rstrip())
    return lines


async def render(picture: Picture) -> str:
    """Draw the picture's app at its size, wait until it is settled, and export the screen."""
    app = picture.make()
    async with app.run_test(size=picture.size) as pilot:
        await picture.settle(pilot)
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        svg = app.export_screenshot(title=TITLE, simplify=True)  # runs of one style as one text: smaller
    return normalise(svg)
