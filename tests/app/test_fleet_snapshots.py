"""Snapshots of the fleet screen: five instances (an outlier, an alert, one down), wide and at 80×24."""

from __future__ import annotations

from textual.pilot import Pilot

from specview.features.watch.fleet_app import FleetApp
from specview.features.watch.screen.fleet import FleetScreen
from tests.support.app_helpers import wait_until
from tests.support.fleet_snapshots import Snapshots, five, utc  # noqa: F401 - utc: an autouse fixture


def app(lang: str = "en") -> FleetApp:
    source = Snapshots(five())
    return FleetApp(source, source.fold, 3600.0, lang=lang)  # one poll: nothing changes while it is taken


async def drawn(pilot: Pilot[None]) -> None:
    screen = pilot.app.screen
    assert isinstance(screen, FleetScreen)
    await wait_until(pilot, lambda: screen.snapshots_shown >= 1)
    await pilot.pause()


def test_fleet_screen_snapshot(snap_compare: object) -> None:
    assert callable(snap_compare)
    assert snap_compare(app(), terminal_size=(130, 24), run_before=drawn)


def test_fleet_screen_80x24_zh_snapshot(snap_compare: object) -> None:
    assert callable(snap_compare)
    assert snap_compare(app("zh"), terminal_size=(80, 24), run_before=drawn)
