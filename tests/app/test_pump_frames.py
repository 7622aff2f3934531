"""The pump's frames keep a fixed grid, their timer always fires, and one that fires while the app
quits does nothing."""

from __future__ import annotations

import pytest

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


def test_the_next_frame_is_due_on_the_grid_and_one_missed_frame_is_made_up() -> None:
    assert next_due(1.0, 1.01, 0.25) == 1.25  # a late start does not push the grid
    assert next_due(1.0, 1.3, 0.25) == 1.25  # ran over: the next one at once, still on the grid
    assert next_due(1.0, 1.6, 0.25) == 1.35  # over by more: at once, and at most one interval behind
    assert next_due(1.0, 2.9, 0.25) == 2.65  # not a burst of the seven it missed


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


async def test_the_next_frame_is_asked_for_with_a_timer_that_always_fires(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's one-shot timer reads the clock twice as it starts; a stall between the reads longer
    than its delay made it skip its only tick. The pump's timer does not skip."""
    from textual import _time
    from textual.app import App

    from specview.tui.pump import one_shot

    app: App[None] = App()
    async with app.run_test() as pilot:
        fired: list[str] = []
        real = _time.get_time
        calls = [0]

        def stalling() -> float:  # every read 10 ms after the one before: always a stall between two
            calls[0] += 1
            return real() + 0.01 * calls[0]

        monkeypatch.setattr(_time, "get_time", stalling)
        app.set_timer(0.001, lambda: fired.append("textual"))
        one_shot(app, 0.001, lambda: fired.append("pump"))
        await wait_until(pilot, lambda: "pump" in fired)
        monkeypatch.setattr(_time, "get_time", real)
        await pilot.pause(0.05)
        assert fired == ["pump"]  # (Textual's own, under the same stall, never fired)
