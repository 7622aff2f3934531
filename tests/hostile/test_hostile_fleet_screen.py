"""Hostile strings in a fleet snapshot: instances, methods, errors, alert values and missing series
from outside reach the screen made safe (no escape, no markup read), bounded, and cut to their cells."""

from __future__ import annotations

from dataclasses import replace

from specview.features.watch.fleet_app import FleetApp
from specview.features.watch.model.fleet import Alert, AlertKind, State
from specview.features.watch.screen.fleet import FleetScreen
from specview.features.watch.screen.fleet_instance import MAX_MISSING, InstanceScreen
from specview.widgets.fleet_table import FleetTable
from tests.support.app_helpers import wait_until
from tests.support.catalog_walk import screen_text
from tests.support.fleet_snapshots import T0, Snapshots, fleet, row, window

EVIL = "[bold red]x[/]\x1b[2J\x1b]52;c;aGk=\x07\r\n"


def hostile() -> Snapshots:
    alert = Alert(AlertKind.DOWN, "http://" + EVIL, T0, {"reason": EVIL * 100})
    bad = row("http://" + EVIL + ":1", method=EVIL * 50, state=State.DOWN, since=T0, alerts=(alert,))
    bad = replace(bad, error=EVIL * 1000, missing=tuple(f"{EVIL}{i}" for i in range(1000)))
    return Snapshots(fleet((bad, row("http://ok:2", sample=window(10, 5, 20)))))


async def test_hostile_strings_are_shown_safe_and_bounded() -> None:
    source = hostile()
    app = FleetApp(source, source.fold, 0.05)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, FleetScreen)
        await wait_until(pilot, lambda: screen.snapshots_shown >= 2)
        await pilot.pause()
        table = screen.query_one(FleetTable)
        for cells in (r.cells for r in table.rows):
            assert all("\x1b" not in cell and "\r" not in cell and "\n" not in cell and "\x07" not in cell
                       for cell in cells)
        await wait_until(pilot, lambda: "[bold red]x[/]" in screen_text(app))  # markup shown as it is, never read
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, InstanceScreen))
        await pilot.pause()
        instance = app.screen
        assert isinstance(instance, InstanceScreen)
        facts = instance.facts(instance.row)
        assert all("\x1b" not in f and "\x07" not in f and "\n" not in f for f in facts)
        assert sum(len(f) for f in facts) < 20_000  # a 17 kB error and 1000 missing series, bounded
        assert any(f.endswith(f"(+{1000 - MAX_MISSING})") for f in facts)
    assert source.closed.is_set()

