"""A screen its runs' pumps draw on, which tells them when it drew."""

from __future__ import annotations

from textual.screen import Screen

from specview.tui.pump import Pumps


class PumpedScreen(Screen[None]):
    """A screen with `pumps` (the live view, compare). Each time it draws it says so to its pumps
    (`Pumps.drawn`): their next frame waits for the draw, and their producers refill after it.
    Textual 8.2 draws a screen's update in `_compositor_refresh` (private, the Textual we pin;
    tests/app/test_pump_frames.py fails if Textual stops calling it). Under a Textual that never
    calls it, each frame waits one interval for a draw that is never announced, as a fallback."""

    pumps: Pumps

    def _compositor_refresh(self) -> None:
        super()._compositor_refresh()
        pumps = getattr(self, "pumps", None)  # (drawn before the pumps exist: at mount)
        if pumps is not None:
            pumps.drawn()
