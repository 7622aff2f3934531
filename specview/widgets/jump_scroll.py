"""A view of lines that follows its end in jumps, unless the user scrolled up or made a selection.

Following the end scrolls in jumps: when the text reaches the bottom it moves up by half the
view at once, and the next lines fill the blank half without moving anything. Scrolling by
one line redraws every visible line; jumping does that once per half page, which is most of
what the stream costs a slow terminal link (SSH). The token view (token_view.py) is one: it says
how many lines it has and what is selected, and calls these as its text grows, shrinks or is laid
out again.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView


class JumpScrollView(ScrollView):
    """A line view that follows its end in jumps (see the module docstring)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.selected: int | None = None  # a selection holds the view where it is: no following
        self._follow = True
        # while following: the virtual height, the text plus the blank rows left by the last jump
        self._floor = 0

    @property
    def line_count(self) -> int:
        """The lines of text (the subclass's)."""
        raise NotImplementedError

    def _grow(self, size: Size) -> bool:
        """Set the virtual size; True when that waits for a layout of the screen.

        Textual lays the whole screen out again for a new virtual size (3–4 ms at 160×48, and four
        following streams jump about once a frame). Without a scrollbar to draw, a taller text
        changes only how far the view scrolls, which Textual reads from the virtual size itself:
        that is set here without the layout. A first scrollable height or one too short to scroll
        still goes through Textual (whether the view can scroll at all is decided there)."""
        old = self.virtual_size
        if size == old:
            return False
        if self._scrolls_on(size):
            self.set_reactive(JumpScrollView.virtual_size, size)
            return False
        self.virtual_size = size
        return True

    def _scrolls_on(self, size: Size) -> bool:
        """Whether `size` is a new virtual size that needs no layout: no scrollbar is drawn, the view
        already scrolls and still will, and the width is the one laid out."""
        return (self.styles.scrollbar_size_vertical == 0 and self.show_vertical_scrollbar
                and size.width == self.virtual_size.width and size.height > self.scrollable_content_region.height)

    def _height(self) -> int:
        """Virtual height: the text, or more while blank rows wait to be filled (after a jump, or
        before the first screenful): a new virtual size repaints the whole view, a new line need not."""
        return max(self.line_count, self._floor, self.scrollable_content_region.height)

    def _jump_if_at_bottom(self) -> None:
        """Following: the top row moves in steps of half a view, so the last line sits in the view's
        lower half; where it stops depends only on the text and the size, not on how it arrived."""
        view = max(self.scrollable_content_region.height, 1)
        lines = self.line_count
        if lines <= view:
            self._floor = 0
            return
        step = max(1, view * 3 // 4)
        top = -(-(lines - view) // step) * step  # the first step whose view holds the last line
        self._floor = top + view

    def _to_end(self, laid_out: bool) -> None:
        """Scroll to the last line. Without a scrollbar and with the size already applied, that is
        only the offset (Textual's scroll_end also stops animations and anchors each time: a tenth
        of a following stream's cost); else Textual's way."""
        if laid_out or self.styles.scrollbar_size_vertical:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        else:
            self._land_scroll()
            self.scroll_target_y = self.scroll_y = self.max_scroll_y

    def _settle_at_end(self) -> None:
        if self._follow and self.selected is None and self.scroll_y < self.max_scroll_y:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def watch_scroll_target_y(self, new_value: float) -> None:
        # Follow the end while the scroll is going there; stop the moment one sets off elsewhere. Every
        # scroll (keys, wheel, bar, scroll_to) sets its destination here before it animates, so this is
        # the user's intent, not where the animation has got to when the next tokens arrive (on a fast
        # machine not one step yet; on a slow one a first step up stays within a line of the end).
        self._follow = self.selected is None and new_value >= self.max_scroll_y

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        if self.styles.scrollbar_size_vertical:
            super().watch_scroll_y(old_value, new_value)
        elif round(old_value) != round(new_value):
            # A bar no cells wide is on no screen: moving it marks a widget the screen does not show
            # dirty, and Textual then maps every widget again (about once a frame for four fast panes).
            # This view sets no anchor, the rest of Textual's watcher; a line view has no child widgets
            # to move, so a new offset only changes which lines are drawn.
            self.refresh()
        if self.selected is None and min(new_value, self.scroll_target_y) >= self.max_scroll_y:
            self._follow = True  # the end came to the view (shorter text, a taller pane): no scroll says so

    def _land_scroll(self) -> None:
        """Finish an animated scroll where it was going, now: the view is about to move by itself, and
        the animation's next steps would take it back to an offset counted before the move (after a
        prune, an old line number clamped to the new end: the user's scroll lost)."""
        self.app.animator.force_stop_animation(self, "scroll_y")
