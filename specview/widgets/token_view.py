"""The stream: every token with its status, drawn with the Line API.

Statuses have a colour (theme variables) *and* a cue that survives NO_COLOR:
accepted = unmarked, rejected = struck through, corrected = ▸ before, bonus = ⁺ after,
discarded = ˣ after (and dim), undecided (a draft before its verdict, step mode) = ˀ after
(and underlined), a tree's lost branch = ⟨…⟩ (and dim; hidden until shown), inferred = italic;
a round boundary, when shown, is a thin bar. Wrapping lives in TokenLayout; only the changed
tail is refreshed and every drawn line is cached until it changes.

Following the end scrolls in jumps: when the text reaches the bottom it moves up by half the
view at once, and the next lines fill the blank half without moving anything. Scrolling by
one line redraws every visible line; jumping does that once per half page, which is most of
what the stream costs a slow terminal link (SSH).
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.events import Click, Resize
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from specview.kernel.events import TokenEvent, TokenStatus
from specview.widgets.bindings import bind
from specview.widgets.line_cache import LineCache
from specview.widgets.plain_box import PlainBox, PlainBoxes
from specview.widgets.token_layout import TokenLayout
from specview.widgets.token_segments import TokenSegments, unfinished
from specview.widgets.token_styles import status_classes, status_rules

MIN_WRAP_WIDTH = 8  # narrower than this (a hidden or squeezed view) the text is not wrapped again
DEFAULT_WRAP_WIDTH = 80


class TokenView(ScrollView, can_focus=True):
    """Coloured, marked tokens; follows the end unless the user scrolled up."""

    COMPONENT_CLASSES = status_classes("token") | {"token--selected"}
    DEFAULT_CSS = f"""
    TokenView {{ background: $surface; padding: 0 1; scrollbar-gutter: stable; scrollbar-size-vertical: 1; }}
    {status_rules("TokenView", "token")}
    TokenView > .token--selected {{ background: $accent 60%; text-style: reverse; }}
    """
    BINDINGS = [
        bind("left", "select(-1)", "token.prev", show=False),
        bind("right", "select(1)", "token.next", show=False),
        bind("escape", "clear_selection", "token.follow", show=False),
    ]

    class Selected(Message):
        """A token was selected (or the selection cleared: token is None)."""

        def __init__(self, token: TokenEvent | None, index: int | None) -> None:
            super().__init__()
            self.token = token
            self.index = index

    def __init__(self, max_tokens: int = 20_000, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.max_tokens = max_tokens
        self._layout = TokenLayout()
        # line -> ((width, selected token on it, scroll x), strip); appends invalidate only the tail lines
        self._cache: LineCache[tuple[tuple[int, int | None, int], Strip]] = LineCache(2048)
        # the same for finished lines (a plain box: see render_lines): line -> (box, selected, strip)
        self._boxes = PlainBoxes()
        self._finished: LineCache[tuple[PlainBox, int | None, Strip]] = LineCache(2048)
        self.finished_count = 0  # lines finished here (the tests read it)
        self._paint = TokenSegments(self)
        self.selected: int | None = None
        self._follow = True
        # while following: the virtual height, the text plus the blank rows left by the last jump
        self._floor = 0

    # model ---------------------------------------------------------------
    @property
    def token_count(self) -> int:
        return len(self._layout.tokens)

    @property
    def line_count(self) -> int:
        return self._layout.line_count

    @property
    def tokens(self) -> list[TokenEvent]:
        return self._layout.tokens

    def plain_text(self) -> str:
        """The emitted text as shown (rejected drafts left out)."""
        return self._layout.plain_text()

    def visible_text(self) -> str:
        """The lines on screen now, with their marks (what `c` copies)."""
        top = int(self.scroll_y)
        rows = [self._layout.line_text(y) for y in range(top, min(top + self.size.height, self._layout.line_count))]
        return "\n".join(row.rstrip() for row in rows).strip("\n")

    @property
    def selected_token(self) -> TokenEvent | None:
        """The selected token, if any."""
        return None if self.selected is None else self._layout.tokens[self.selected]

    def clear(self) -> None:
        """Forget every token (the display options stay)."""
        old = self._layout
        self._layout = TokenLayout(old.width, hidden=old.hidden, separators=old.separators)
        self.selected = None
        self._floor = 0
        self._relayout()

    def holds(self, status: TokenStatus) -> bool:
        """Whether any token kept has this status."""
        return self._layout.holds(status)

    @property
    def hidden(self) -> frozenset[TokenStatus]:
        return self._layout.hidden

    @property
    def separators(self) -> bool:
        return self._layout.separators

    def set_display(self, *, hidden: frozenset[TokenStatus] | None = None, separators: bool | None = None) -> None:
        """Hide statuses (their tokens keep their places in the list) or show round separators."""
        self._layout.set_display(hidden=hidden, separators=separators)
        if self.selected is not None and not self._layout.texts[self.selected]:
            self.selected = None  # a hidden token cannot stay selected
            self.post_message(self.Selected(None, None))
        following = self._follow and self.selected is None
        if following:
            self._jump_if_at_bottom()
        self._relayout()
        if following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
            self.call_after_refresh(self._settle_at_end)

    def drop_tail(self, count: int) -> None:
        """Take the newest `count` tokens back (step mode's provisional drafts)."""
        layout = self._layout
        if count <= 0 or not layout.tokens:
            return
        first_dirty = layout.drop_tail(count)
        if self.selected is not None and self.selected >= len(layout.tokens):
            self.selected = None
        self._forget(range(first_dirty, first_dirty + count + 64))
        self.virtual_size = Size(layout.width, self._height())
        self.refresh()

    def append(self, events: Iterable[TokenEvent]) -> None:
        """Add tokens at the end; refreshes only the lines that changed."""
        layout = self._layout
        follow = self._follow  # not "at the end now": a shrinking pane moves the end away from us
        count = len(layout.tokens)
        first_dirty = layout.append(events)
        if len(layout.tokens) == count:
            return
        width = self._wrap_width()
        if width != layout.width:  # not laid out yet, or the width changed without a resize
            layout.rewrap(width)
            first_dirty = 0
        if len(layout.tokens) > self.max_tokens:
            self._prune()
            first_dirty = 0
        self._forget(range(first_dirty, len(layout.lines)))
        if follow and self.selected is None:
            self._jump_if_at_bottom()
        laid_out = self._grow(Size(layout.width, self._height()))
        self.refresh_lines(first_dirty, len(layout.lines) - first_dirty)
        if follow and self.selected is None and (laid_out or self.scroll_y < self.max_scroll_y):
            self._to_end(laid_out)
            if laid_out:  # and once more after layout, in case the new virtual size was not applied yet
                self.call_after_refresh(self._settle_at_end)

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
            self.set_reactive(TokenView.virtual_size, size)
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
        return max(self._layout.line_count, self._floor, self.scrollable_content_region.height)

    def _jump_if_at_bottom(self) -> None:
        """Following: the top row moves in steps of half a view, so the last line sits in the view's
        lower half; where it stops depends only on the text and the size, not on how it arrived."""
        view = max(self.scrollable_content_region.height, 1)
        lines = self._layout.line_count
        if lines <= view:
            self._floor = 0
            return
        step = max(1, view * 3 // 4)
        top = -(-(lines - view) // step) * step  # the first step whose view holds the last line
        self._floor = top + view

    def _prune(self) -> None:
        """Drop the oldest lines (about a fifth of the cap) without wrapping the rest again."""
        before = self._layout.base
        dropped = self._layout.prune(self.max_tokens - self.max_tokens // 5)
        if not dropped:
            return
        self._floor = max(0, self._floor - dropped)
        self._land_scroll()
        if self.selected is not None:
            shift = self._layout.base - before
            self.selected = self.selected - shift if self.selected >= shift else None
        # Every line moved up by `dropped`: the view moves with them, so the text in view stays put
        # (four fast panes prune several times a second, each a whole screen's layout before).
        self._forget_all()
        top = max(0, round(self.scroll_y) - dropped)
        self._grow(Size(self._layout.width, self._height()))
        self.scroll_target_y = self.scroll_y = top
        self.refresh()

    def _forget(self, lines: range) -> None:
        for y in lines:
            self._cache.discard(y)
            self._finished.discard(y)

    def _forget_all(self) -> None:
        self._cache.clear()
        self._finished.clear()

    def _relayout(self) -> None:
        self._forget_all()
        self.virtual_size = Size(self._layout.width, self._height())
        self.refresh()

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

    def _wrap_width(self) -> int:
        """The width to wrap at: the content width, unless the view is hidden or squeezed to a sliver;
        then the last real width stays (or a usual one before the first), since wrapping thousands of
        tokens one cell wide helps nobody and the next real size wraps them again anyway."""
        width = self.scrollable_content_region.width
        if width >= MIN_WRAP_WIDTH:
            return width
        return self._layout.width if self._layout.width > 1 else DEFAULT_WRAP_WIDTH

    def on_resize(self, event: Resize) -> None:
        width = self._wrap_width()
        if width != self._layout.width:
            self._layout.rewrap(width)
        if self._follow and self.selected is None:
            self._jump_if_at_bottom()
        self._relayout()
        if self._follow and self.selected is None:  # a new height moves the end too
            self.scroll_end(animate=False, immediate=True, x_axis=False)
            self.call_after_refresh(self._settle_at_end)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._forget_all()
        if self.show_vertical_scrollbar and self.styles.scrollbar_size_vertical:  # a bar given width again
            self.vertical_scrollbar.position = self.scroll_y
        self._paint.clear()

    # drawing -------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        """Finished lines for the compositor: built here in one pass while the box is plain (see
        plain_box), else by Textual from render_line. Cached per line until it changes."""
        scroll_x, scroll_y = self.scroll_offset
        box = self._boxes.of(self, self.scrollable_content_region.width)
        if box is None or scroll_x:
            return super().render_lines(crop)
        rows = [self._finished_line(scroll_y + y, box) for y in crop.line_range]
        x1, x2 = crop.column_span
        if (x1, x2) != (0, box.width):
            rows = [row.crop(x1, x2) for row in rows]
        return rows

    def _finished_line(self, line_y: int, box: PlainBox) -> Strip:
        layout = self._layout
        if line_y >= len(layout.lines):
            return box.blank(self._paint.base())
        sel = self.selected if self.selected is not None and layout.line_has(line_y, self.selected) else None
        cached = self._finished.get(line_y)
        if cached is not None and cached[0] is box and cached[1] == sel:
            return cached[2]
        segments, cells = self._paint.line(layout, line_y, self.selected, box.finish)
        strip = box.line(segments, cells, box.finish(self._paint.base()), joined=True)  # (runs joined: token_segments)
        self.finished_count += 1
        self._finished[line_y] = (box, sel, strip)
        return strip

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        line_y = scroll_y + y
        width = self.scrollable_content_region.width
        base = self._paint.base()
        if line_y >= len(self._layout.lines):
            return Strip.blank(width, base)
        sel = self.selected if self.selected is not None and self._layout.line_has(line_y, self.selected) else None
        key = (width, sel, scroll_x)
        cached = self._cache.get(line_y)
        if cached is not None and cached[0] == key:
            return cached[1]
        segments, cells = self._paint.line(self._layout, line_y, self.selected, unfinished)
        # No offsets in the segments' meta: nothing reads them here (a click asks token_at), and
        # adding them made a new style for every segment of every line.
        strip = Strip(segments, cells).crop_extend(scroll_x, scroll_x + width, base)
        self._cache[line_y] = (key, strip)
        return strip

    # selection -----------------------------------------------------------
    def token_at(self, x: int, y: int) -> int | None:
        """Token index under a content-space cell, if any."""
        return self._layout.token_at(x, y)

    def select(self, index: int | None) -> None:
        """Select a token (None clears the selection and resumes following the end)."""
        if index is not None:
            count = len(self._layout.tokens)
            index = max(0, min(index, count - 1)) if count else None
        self.selected = index
        self._forget_all()
        self.refresh()
        if index is not None:
            self.scroll_to(y=max(0, self._layout.line_of(index) - self.size.height // 2), animate=False)
            self.post_message(self.Selected(self._layout.tokens[index], index))
        else:
            self.post_message(self.Selected(None, None))
            self._follow = True
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def action_select(self, delta: int) -> None:
        count = len(self._layout.tokens)
        if not count:
            return
        index = count if self.selected is None else self.selected
        texts = self._layout.texts
        while True:  # skip tokens that take no room (a hidden status)
            index += delta
            if not 0 <= index < count:
                index = max(0, min(index, count - 1))
                break
            if texts[index]:
                break
        self.select(index)

    def action_clear_selection(self) -> None:
        self.select(None)

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.token_at(offset.x + int(self.scroll_x), offset.y + int(self.scroll_y))
        if index is not None:
            self.select(index)
