"""A widget that hands the compositor the lines it drew last time, until it is marked dirty.

Textual's compositor asks every visible widget whose clip overlaps a frame's dirty area for
all of its lines, on every frame, and each widget finishes them again: its line filters, its
crop, a walk up the DOM for its colours. A stream redrawn 30 times a second makes that every
gauge line, bar and table on the screen 30 times a second, most of them unchanged. A settled
widget keeps the lines it handed over and gives them again while nothing that shapes them
differs: until Textual marks it dirty (an update, a refresh, a new size, reset styles), its
styles change, or its colours, opacity or the app's filters are not the ones it drew with.

It relies on Textual's private `Widget._set_dirty` being the one place a repaint of a widget is
asked for (`marked_dirty`, specview/compat/textual_compat.py; tests/app/test_settled.py would fail
if a change got past it).
"""

from __future__ import annotations

from textual.containers import Container
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Footer

from specview.compat.textual_compat import DirtyWidget


class Settled(DirtyWidget):
    """A widget's base (`class Bars(Settled)`), or a second base after a Textual widget's
    (`class Pane(Vertical, Settled)`): Textual takes CSS only from a class's first base."""

    _settled: tuple[tuple[object, ...], list[Strip]] | None = None

    def marked_dirty(self) -> None:
        self._settled = None

    def notify_style_update(self) -> None:
        self._settled = None
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        # outer_size, not size: the size asks the compositor's map for the region (this runs for every
        # widget on every frame); the content size follows from it and the styles, which clear this
        key = (crop, self.outer_size, self.background_colors, self.opacity, tuple(self.get_line_filters()))
        settled = self._settled
        if settled is not None and settled[0] == key and self.dirty_hook:
            return settled[1]
        lines = super().render_lines(crop)
        self._settled = (key, lines)
        return lines


class SettledFooter(Footer, Settled):
    """Textual's footer, settled: under a stream it was finished again on every frame."""


class SettledContainer(Container, Settled):
    """Textual's container, settled (its own background, behind the panes of a stream)."""
