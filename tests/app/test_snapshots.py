"""Snapshots with a fixed seed: the live screen after a bounded run."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.support.app_helpers import sim_app, wait_finished


def test_live_screen_snapshot(snap_compare: object) -> None:
    assert callable(snap_compare)
    assert snap_compare(sim_app(max_rounds=60, seed=7), terminal_size=(110, 32), run_before=wait_finished)


def test_live_screen_with_a_selected_token(snap_compare: object) -> None:
    async def select(pilot: Pilot[None]) -> None:
        await wait_finished(pilot)
        for _ in range(3):
            await pilot.press("left")
        await pilot.pause()

    assert callable(snap_compare)
    assert snap_compare(sim_app("glm-5.2-mtp", max_rounds=25, seed=3), terminal_size=(110, 32),
                        run_before=select)


def test_narrow_terminal_snapshot(snap_compare: object) -> None:
    assert callable(snap_compare)
    # a run whose text fits the view: where the follow-the-end jump lands can depend on load
    assert snap_compare(sim_app(max_rounds=12, seed=1), terminal_size=(60, 16), run_before=wait_finished)
