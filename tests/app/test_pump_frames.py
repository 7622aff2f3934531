"""The pump's frames keep a fixed grid, and one that fires while the app quits does nothing."""

from __future__ import annotations

from specview.backends.factory import make_backend
from specview.features.live.app import SpecviewApp
from specview.features.live.compare_screen import CompareScreen
from specview.kernel.runspec import RunSpec
from specview.tui.pump import next_due
from tests.support.app_helpers import wait_until


def compare_app() -> SpecviewApp:
    specs = [RunSpec(preset=p, seed=5, speed=0.0) for p in ("qwen3.6-mtp", "eagle3")]
    backends = [make_backend(s) for s in specs]
    return SpecviewApp(specs[0], backends[0], compare=backends)


def test_the_next_frame_is_due_on_the_grid_and_missed_ones_are_not_made_up() -> None:
    assert next_due(1.0, 1.01, 0.25) == 1.25  # a late start does not push the grid
    assert next_due(1.0, 1.3, 0.25) == 1.3  # ran over: the next one at once, and the grid from there
    assert next_due(1.0, 2.9, 0.25) == 2.9  # not a burst of the seven it missed


async def test_a_frame_that_fires_while_the_app_quits_does_nothing() -> None:
    app = compare_app()
    async with app.run_test(size=(140, 40)) as pilot:
        cmp = app.screen_stack[0]
        assert isinstance(cmp, CompareScreen)
        await wait_until(pilot, lambda: all(pane.view.token_count for pane in cmp._panes))
        pumps = cmp.pumps
    drawn = list(pumps.drawn_rounds)
    pumps._frame()  # the screen's widgets are gone: a frame now would look for them and fail
    assert pumps.drawn_rounds == drawn
