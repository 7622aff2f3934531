"""The pump's frames keep a fixed grid, their timer always fires, and one that fires while the app
quits does nothing."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

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


async def compare_drawing(pilot: Pilot[None]) -> CompareScreen:
    """The compare screen, once every pane shows tokens."""
    cmp = pilot.app.screen_stack[0]
    assert isinstance(cmp, CompareScreen)
    await wait_until(pilot, lambda: all(pane.view.token_count for pane in cmp._panes))
    return cmp


def test_the_next_frame_is_due_on_the_grid_and_one_missed_frame_is_made_up() -> None:
    assert next_due(1.0, 1.01, 0.25) == 1.25  # a late start does not push the grid
    assert next_due(1.0, 1.3, 0.25) == 1.25  # ran over: the next one at once, still on the grid
    assert next_due(1.0, 1.6, 0.25) == 1.35  # over by more: at once, and at most one interval behind
    assert next_due(1.0, 2.9, 0.25) == 2.65  # not a burst of the seven it missed


async def test_a_frame_that_fires_while_the_app_quits_does_nothing() -> None:
    app = compare_app()
    async with app.run_test(size=(140, 40)) as pilot:
        cmp = await compare_drawing(pilot)
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


async def test_a_frame_waits_until_the_screen_drew_the_last_and_the_producers_refill_after_the_draw(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame that began before the last one was drawn would fold the two into one draw; and
    producers told of room by the drain would take the GIL while the screen draws."""
    from specview.kernel.session import Session

    woken: list[int] = []
    real_wake = Session.wake

    def spy(self: Session) -> None:
        woken.append(id(self))
        real_wake(self)

    monkeypatch.setattr(Session, "wake", spy)
    app = compare_app()
    async with app.run_test(size=(140, 40)) as pilot:
        cmp = await compare_drawing(pilot)
        pumps = cmp.pumps
        for pump in pumps.pumps:
            pump.session.pause()  # nothing new from here: the frame below changes the screen, nothing else does
        sessions_still = lambda: all(p.session.parked and p.drawn_rounds == p.session.produced for p in pumps.pumps)  # noqa: E731
        await wait_until(pilot, sessions_still)
        drawn_before = list(pumps.drawn_rounds)
        pumps._drawing = True  # as after a frame that changed the screen, not drawn yet
        pumps._frame()  # the next frame is due: it waits
        assert pumps._waiting and pumps.drawn_rounds == drawn_before
        woken.clear()
        pumps._owed = True
        cmp.refresh()  # Textual draws it: the screen tells the pumps, which wake the producers
        await wait_until(pilot, lambda: not pumps._waiting and not pumps._drawing)
        # each woken at the draw (a second draw before this line runs, as under load, wakes them again)
        assert set(woken) == {id(p.session) for p in pumps.pumps}
        woken.clear()
        pumps.tick(wake=False)
        assert woken == []  # the drains of a frame leave them to the draw


async def test_the_screen_tells_its_pumps_each_time_it_draws() -> None:
    """Textual's own drawing calls the hook (a private method of the Textual we pin): under four
    runs flat out, frames begin after the last one's draw, not after waiting out an interval."""
    from specview.tui.pumped_screen import PumpedScreen

    specs = [RunSpec(preset=p, seed=5, speed=0.0) for p in ("qwen3.6-mtp", "eagle3", "glm-5.2-mtp", "deepseek-v3-mtp")]
    app = SpecviewApp(specs[0], make_backend(specs[0]), compare=[make_backend(s) for s in specs])
    ticks: list[bool] = []
    draws = [0]
    async with app.run_test(size=(160, 48)) as pilot:
        cmp = app.screen_stack[0]
        assert isinstance(cmp, PumpedScreen)
        pumps = cmp.pumps
        real_tick, real_drawn = pumps.tick, pumps.drawn

        def tick(*, wake: bool = True) -> bool:
            ticks.append(pumps._drawing)  # True: a frame that waited its whole interval for a draw
            return real_tick(wake=wake)

        def drawn() -> None:
            draws[0] += 1
            real_drawn()

        pumps.tick, pumps.drawn = tick, drawn  # type: ignore[method-assign]
        await wait_until(pilot, lambda: len(ticks) >= 60)
    assert draws[0] >= 20, draws
    assert sum(ticks) < len(ticks) // 2, ticks  # with no word of the draws, every frame would wait
