"""Build the real app on the simulator, and wait for it without sleeping blindly."""

from __future__ import annotations

from textual.pilot import Pilot

from specview.backends.factory import make_backend
from specview.features.live.app import SpecviewApp
from specview.kernel.runspec import RunSpec
from specview.widgets.token_view import TokenView


def sim_app(preset: str = "qwen3.6-mtp", *, seed: int = 7, speed: float = 0.0,
            max_rounds: int | None = None, lang: str = "en") -> SpecviewApp:
    spec = RunSpec(preset=preset, seed=seed, speed=speed, max_rounds=max_rounds, lang=lang)
    return SpecviewApp(spec, make_backend(spec), lang=lang)


async def wait_until(pilot: Pilot[None], predicate: object, timeout: float = 20.0) -> None:
    """Let the app run until `predicate()` holds (polled every 20 ms)."""
    assert callable(predicate)
    for _ in range(int(timeout / 0.02)):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not reached in time")


async def wait_finished(pilot: Pilot[None]) -> None:
    """Wait until a bounded run has been produced, drained and drawn."""
    app = pilot.app
    assert isinstance(app, SpecviewApp)

    def done() -> bool:
        live = app.live
        drained = live.session.drain(limit=0)
        # the pump has seen the end, so the last numbers are drawn too (a run's end is drawn at once)
        return drained.finished and live.drawn_rounds == live.session.produced and live.pump.state.ended

    await wait_until(pilot, done)
    await pilot.pause()


def still(app: SpecviewApp) -> bool:
    """A paused run that is still: its producer parked at the pause gate with no step owed, and
    every round it produced drawn. What a "paused run keeps producing nothing" check waits for:
    from here nothing more can come until a resume or a step."""
    live = app.live
    return live.session.parked and live.drawn_rounds == live.session.produced


def token_view(app: SpecviewApp) -> TokenView:
    return app.live.query_one(TokenView)
