"""The stream: every token with its status, drawn with the Line API.

Statuses have a colour (theme variables) *and* a cue that survives NO_COLOR:
accepted = unmarked, rejected = struck through, corrected = ▸ before, bonus = ⁺ after,
inferred = italic. Only the changed tail is refreshed; wrapped lines are cached.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.cache import LRUCache
from textual.events import Click, Resize
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from specview.core.events import TokenEvent, TokenStatus
from specview.core.text import sanitize

MARKS = {TokenStatus.CORRECTED: ("▸", ""), TokenStatus.BONUS: ("", "⁺")}


def _display(event: TokenEvent) -> str:
    """The token's text as drawn: sanitised, with its mark (after any leading whitespace)."""
    body = sanitize(event.text)
    pre, post = MARKS.get(event.status, ("", ""))
    if not pre and not post:
        return body
    stripped = body.lstrip(" \n")
    lead = body[: len(body) - len(stripped)]
    return lead + pre + stripped + post


@dataclass(frozen=True, slots=True)
class Piece:
    """Part of one token's display text on one line: token index and [start, end) in that text."""

    token: int
    start: int
    end: int


class TokenView(ScrollView, can_focus=True):
    """Coloured, marked tokens; follows the end unless the user scrolled up."""

    COMPONENT_CLASSES = {
        "token--accepted",
        "token--rejected",
        "token--corrected",
        "token--bonus",
        "token--plain",
        "token--selected",
    }
    DEFAULT_CSS = """
    TokenView { background: $surface; padding: 0 1; scrollbar-gutter: stable; scrollbar-size-vertical: 1; }
    TokenView > .token--accepted { color: $token-accepted; }
    TokenView > .token--rejected { color: $token-rejected; text-style: strike dim; }
    TokenView > .token--corrected { color: $token-corrected; text-style: bold; }
    TokenView > .token--bonus { color: $token-bonus; text-style: bold; }
    TokenView > .token--plain { color: $foreground; }
    TokenView > .token--selected { background: $accent 60%; text-style: reverse; }
    """
    BINDINGS = [
        Binding("left", "select(-1)", "prev token", show=False, id="token.prev"),
        Binding("right", "select(1)", "next token", show=False, id="token.next"),
        Binding("escape", "clear_selection", "follow", show=False, id="token.follow"),
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
        self._tokens: list[TokenEvent] = []
        self._texts: list[str] = []
        self._lines: list[list[Piece]] = [[]]
        self._token_line: list[int] = []
        self._cur_width = 0
        self._wrap_width = 0
        # line -> (width, selected token on it, strip); appends invalidate only the tail lines
        self._cache: LRUCache[int, tuple[int, int | None, Strip]] = LRUCache(2048)
        self.selected: int | None = None
        self._base: Style | None = None
        self._follow = True

    # model ---------------------------------------------------------------
    @property
    def token_count(self) -> int:
        return len(self._tokens)

    @property
    def line_count(self) -> int:
        return len(self._lines) if self._lines[-1] else len(self._lines) - 1

    @property
    def tokens(self) -> list[TokenEvent]:
        return self._tokens

    def plain_text(self) -> str:
        """The emitted text as shown (rejected drafts left out)."""
        return "".join(sanitize(t.text) for t in self._tokens if t.emitted)

    def clear(self) -> None:
        """Forget every token."""
        self._tokens.clear()
        self._texts.clear()
        self.selected = None
        self._rewrap()

    def append(self, events: Iterable[TokenEvent]) -> None:
        """Add tokens at the end; refreshes only the lines that changed."""
        follow = self.is_vertical_scroll_end or (self.selected is None and self.max_scroll_y == 0)
        first_dirty = len(self._lines) - 1
        added = False
        for event in events:
            self._tokens.append(event)
            self._texts.append(_display(event))
            self._place(len(self._tokens) - 1)
            added = True
        if not added:
            return
        if self.scrollable_content_region.width != self._wrap_width:
            # A scrollbar appeared or went: the wrap width changed without a resize.
            self._wrap_width = self.scrollable_content_region.width
            self._rewrap()
            first_dirty = 0
        if len(self._tokens) > self.max_tokens:
            self._prune()
            first_dirty = 0
        self._drop_cached_from(first_dirty)
        self.virtual_size = Size(self._wrap_width, self.line_count)
        self.refresh_lines(first_dirty, len(self._lines) - first_dirty)
        if follow and self.selected is None:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
            # and once more after layout, in case the new virtual size was not applied yet
            self.call_after_refresh(self._settle_at_end)

    def _prune(self) -> None:
        drop = len(self._tokens) - self.max_tokens + self.max_tokens // 5
        del self._tokens[:drop]
        del self._texts[:drop]
        if self.selected is not None:
            self.selected = self.selected - drop if self.selected >= drop else None
        self._rewrap()

    # layout --------------------------------------------------------------
    def _place(self, index: int) -> None:
        text = self._texts[index]
        width = max(self._wrap_width, 1)
        self._token_line.append(len(self._lines) - 1)
        base = 0
        for n, part in enumerate(text.split("\n")):
            if n:
                self._new_line()
            pos = 0
            while pos < len(part):
                rest = part[pos:]
                room = width - self._cur_width
                rest_width = cell_len(rest)
                if rest_width <= room:
                    self._add(Piece(index, base + pos, base + len(part)), rest_width)
                    break
                if self._cur_width and rest_width <= width:
                    self._new_line()
                    continue
                take, used = 0, 0
                for ch in rest:
                    w = cell_len(ch)
                    if used + w > room:
                        break
                    take, used = take + 1, used + w
                if take == 0 and self._cur_width:
                    self._new_line()
                    continue
                if take == 0:  # one character wider than the whole line: place it anyway
                    take, used = 1, cell_len(rest[0])
                self._add(Piece(index, base + pos, base + pos + take), used)
                self._new_line()
                pos += take
            base += len(part) + 1

    def _add(self, piece: Piece, width: int) -> None:
        self._lines[-1].append(piece)
        self._cur_width += width

    def _new_line(self) -> None:
        self._lines.append([])
        self._cur_width = 0

    def _rewrap(self) -> None:
        self._lines = [[]]
        self._token_line = []
        self._cur_width = 0
        for index in range(len(self._tokens)):
            self._place(index)
        self._cache.clear()
        self.virtual_size = Size(self._wrap_width, self.line_count)
        self.refresh()

    def _drop_cached_from(self, y0: int) -> None:
        for y in range(y0, len(self._lines)):
            self._cache.discard(y)

    def _settle_at_end(self) -> None:
        if self._follow and self.selected is None and self.scroll_y < self.max_scroll_y:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Follow the end while the user is at the bottom; stop once they scroll up.
        self._follow = self.selected is None and new_value >= self.max_scroll_y - 1

    def on_resize(self, event: Resize) -> None:
        width = self.scrollable_content_region.width
        if width != self._wrap_width:
            self._wrap_width = width
            self._rewrap()
            if self._follow:
                self.scroll_end(animate=False, immediate=True, x_axis=False)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._base = None

    def _base_style(self) -> Style:
        # rich_style walks the DOM; it only changes with the styles, so keep it.
        if self._base is None:
            self._base = self.rich_style
        return self._base

    # drawing -------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        line_y = scroll_y + y
        width = self.scrollable_content_region.width
        base = self._base_style()
        if line_y >= len(self._lines):
            return Strip.blank(width, base)
        sel = self.selected if self.selected is not None and self._line_has(line_y, self.selected) else None
        cached = self._cache.get(line_y)
        if cached is not None and cached[:2] == (width, sel):
            strip = cached[2]
        else:
            strip = self._render_strip(line_y, base)
            self._cache[line_y] = (width, sel, strip)
        return strip.crop_extend(scroll_x, scroll_x + width, base).apply_offsets(scroll_x, line_y)

    def _line_has(self, y: int, token: int) -> bool:
        return any(p.token == token for p in self._lines[y])

    def _style(self, status: TokenStatus, inferred: bool, selected: bool) -> Style:
        style = self.get_component_rich_style(f"token--{status.value}", partial=True)
        if inferred:
            style += Style(italic=True)
        if selected:
            style += self.get_component_rich_style("token--selected", partial=True)
        return style

    def _render_strip(self, y: int, base: Style) -> Strip:
        segments = []
        for piece in self._lines[y]:
            event = self._tokens[piece.token]
            style = base + self._style(event.status, event.inferred, piece.token == self.selected)
            segments.append(Segment(self._texts[piece.token][piece.start : piece.end], style))
        # Runs of tokens in the same style become one segment: far less for the compositor to chop.
        return Strip(Segment.simplify(segments))

    # selection -----------------------------------------------------------
    def token_at(self, x: int, y: int) -> int | None:
        """Token index under a content-space cell, if any."""
        if not 0 <= y < len(self._lines):
            return None
        col = 0
        for piece in self._lines[y]:
            col += cell_len(self._texts[piece.token][piece.start : piece.end])
            if x < col:
                return piece.token
        return None

    def select(self, index: int | None) -> None:
        """Select a token (None clears the selection and resumes following the end)."""
        if index is not None:
            index = max(0, min(index, len(self._tokens) - 1)) if self._tokens else None
        self.selected = index
        self._cache.clear()
        self.refresh()
        if index is not None:
            self.scroll_to(y=max(0, self._token_line[index] - self.size.height // 2), animate=False)
            self.post_message(self.Selected(self._tokens[index], index))
        else:
            self.post_message(self.Selected(None, None))
            self._follow = True
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def action_select(self, delta: int) -> None:
        if not self._tokens:
            return
        start = len(self._tokens) if self.selected is None else self.selected
        self.select(start + delta)

    def action_clear_selection(self) -> None:
        self.select(None)

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.token_at(offset.x + int(self.scroll_x), offset.y + int(self.scroll_y))
        if index is not None:
            self.select(index)
