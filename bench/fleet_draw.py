"""The fleet screen's drawing, for `bench/fleet_watch.py --draw bench.fleet_draw:draw`.

Each call folds one poll's readings through the fleet model (as `specview watch --prometheus`
does) and draws the snapshot on a real FleetScreen, headless at 160×50, returning once Textual has
laid it out and rendered it; so the benchmark's refresh time is queries, fold and drawing together.
The app runs on a thread of its own (its own event loop); its own poller is idle (an hour's
interval over a source with no instances), so only the benchmark's polls reach the screen.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from specview.features.watch.fleet_app import FleetApp
from specview.features.watch.model.fleet import FleetSnapshot, InstanceReading
from specview.features.watch.model.fleet_model import FleetModel
from specview.features.watch.screen.fleet import FleetScreen

SIZE = (160, 50)
INTERVAL_S = 2.0  # the refresh window the model folds over (the benchmark's interval)


class _Nobody:
    """A FleetSource with no instances: the screen's own poll finds nothing to draw."""

    def poll(self) -> tuple[InstanceReading, ...]:
        return ()

    def interrupt(self) -> None:
        return None

    def close(self) -> None:
        return None


class _Headless:
    def __init__(self) -> None:
        self.model = FleetModel(INTERVAL_S)
        self.app = FleetApp(_Nobody(), self.model.fold, interval=3600.0)
        self._ready = threading.Event()
        self._pilot: Any = None
        threading.Thread(target=asyncio.run, args=(self._serve(),), name="fleet-draw", daemon=True).start()
        if not self._ready.wait(120):
            raise RuntimeError("the fleet screen did not start within 120 s")

    async def _serve(self) -> None:
        async with self.app.run_test(size=SIZE) as pilot:
            self._pilot = pilot
            while not isinstance(self.app.screen, FleetScreen):
                await pilot.pause()
            self._ready.set()
            await asyncio.Event().wait()  # until the process ends (a daemon thread)

    async def _show(self, snapshot: FleetSnapshot) -> None:
        screen = self.app.screen
        assert isinstance(screen, FleetScreen)
        with self.app.batch_update():
            screen.show(snapshot)
        await self._pilot.pause()  # layout and render done

    def draw(self, readings: tuple[InstanceReading, ...]) -> None:
        snapshot = self.model.fold(readings)
        # in the app's context, waited for (Textual types the callback's awaitable as Never)
        self.app.call_from_thread(self._show, snapshot)  # type: ignore[arg-type]


_SCREEN: _Headless | None = None


def draw(readings: tuple[InstanceReading, ...]) -> None:
    """Fold and draw one poll's readings (the screen starts on the first call)."""
    global _SCREEN
    if _SCREEN is None:
        _SCREEN = _Headless()
    _SCREEN.draw(readings)
