"""A snapshot of the doctor screen: the fleet's fixed snapshots (tests/support/fleet_snapshots.py), the
vLLM instance that accepts nothing opened, and `d` pressed: its findings, marks and flag at 100×30."""

from __future__ import annotations

from textual.pilot import Pilot

from specview.features.doctor.screen import DoctorScreen
from specview.features.watch.fleet_app import FleetApp
from specview.features.watch.screen.fleet import FleetScreen
from specview.features.watch.screen.fleet_instance import InstanceScreen
from tests.support.app_helpers import wait_until
from tests.support.fleet_snapshots import Snapshots, five, utc  # noqa: F401 - utc: an autouse fixture


async def doctor_open(pilot: Pilot[None]) -> None:
    fleet = pilot.app.screen
    assert isinstance(fleet, FleetScreen)
    await wait_until(pilot, lambda: fleet.snapshots_shown >= 1)
    await pilot.press("down", "down", "down", "enter")  # 8003: vLLM, eagle3, γ 5, nothing accepted
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, InstanceScreen))
    await pilot.press("d")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, DoctorScreen) and bool(pilot.app.screen.shown))
    await pilot.pause()


def test_doctor_screen_snapshot(snap_compare: object) -> None:
    assert callable(snap_compare)
    source = Snapshots(five())
    app = FleetApp(source, source.fold, 3600.0, lang="en")  # one poll: nothing changes while it is taken
    assert snap_compare(app, terminal_size=(100, 30), run_before=doctor_open)
