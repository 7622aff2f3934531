"""A screen its runs' pumps draw on, which tells them when it drew."""

from __future__ import annotations

from specview.compat.textual_compat import DrawnScreen
from specview.tui.pump import Pumps


class PumpedScreen(DrawnScreen):
    """A screen with `pumps` (the live view, compare). Each time it draws it says so to its pumps
    (`Pumps.drawn`): their next frame waits for the draw, and their producers refill after it.
    Textual has no public hook for a draw (specview/compat/textual_compat.py; tests/app/test_pump_frames.py
    fails if Textual stops calling it). Were it gone, each frame would wait one interval for a draw
    that is never announced, as a fallback."""

    pumps: Pumps

    def screen_drawn(self) -> None:
        pumps = getattr(self, "pumps", None)  # (drawn before the pumps exist: at mount)
        if pumps is not None:
            pumps.drawn()
