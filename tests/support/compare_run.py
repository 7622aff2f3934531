"""Build the compare screen on the simulator, and wait until every pane's bounded run is drawn."""

from __future__ import annotations

from textual.pilot import Pilot

from specview.backends.factory import make_backend
from specview.features.live.app import SpecviewApp
from specview.features.live.compare_screen import CompareScreen
from specview.kernel.runspec import RunSpec
from specview.texts.catalog import text
from specview.widgets.run_pane import RunPane
from specview.widgets.status_line import StatusLine
from tests.support.app_helpers import wait_until


def compare_app(*presets: str, max_rounds: int | None = None, speed: float = 0.0) -> SpecviewApp:
    specs = [RunSpec(preset=p, seed=5, speed=speed, max_rounds=max_rounds) for p in presets]
    backends = [make_backend(s) for s in specs]
    return SpecviewApp(specs[0], backends[0], compare=backends)


def compare_screen(app: SpecviewApp) -> CompareScreen:
    s = app.screen_stack[0]
    assert isinstance(s, CompareScreen)
    return s


async def compare_finished(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, SpecviewApp)

    def done() -> bool:
        cmp = compare_screen(app)
        return all(s.drain(limit=0).finished for s in cmp.sessions) and all(
            d == s.produced for d, s in zip(cmp.drawn_rounds, cmp.sessions, strict=True)
        )

    await wait_until(pilot, done)
    # a run's end is drawn at once: the status says finished when every number is on screen
    await wait_until(pilot, lambda: compare_screen(app).query_one(StatusLine).state == text("state.finished", "en"))
    # every pane follows its stream to the end (the last scroll settles after a refresh)
    views = [pane.view for pane in compare_screen(app).query(RunPane)]
    await wait_until(pilot, lambda: all(v.scroll_y >= v.max_scroll_y for v in views))
    await pilot.wait_for_scheduled_animations()  # and drawn there
