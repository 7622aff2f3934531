"""Textual's per-widget line renderer, made to hand back the same finished Strip for a content
line that did not change, wherever it is on screen now.

Textual's StylesCache remembers finished lines by their row in the widget. A stream that
scrolls moves every line to another row, so every row is dirty and each is finished again
(padding, border, a new Strip), and since the Strip is new, every cache Textual keeps on a
Strip (the line filter's, the compositor's cuts, the driver's ANSI text) misses as well. Here
a row whose content Strip is the very object finished before (the widget keeps one per line
until the line changes) gets that finished Strip back: one dictionary lookup instead of a
line's worth of Segments, and the Strip-level caches downstream hit.

What else goes into a finished line (the size, the padding, the colours, border, outline,
tint, opacity) is compared as one tuple per render; any difference finishes every line again.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.terminal_theme import TerminalTheme
from textual._ansi_theme import DEFAULT_TERMINAL_THEME
from textual._styles_cache import RenderLineCallback, StylesCache
from textual.cache import LRUCache
from textual.color import Color
from textual.content import Content
from textual.css.styles import StylesBase
from textual.filter import LineFilter
from textual.geometry import Region, Size, Spacing
from textual.strip import Strip
from textual.style import Style

FINISHED_LINES = 128  # per widget: a tall screen of lines; more would hold strips the GC must walk

Label = tuple[Content, Color, Color, Style] | None


class StableStylesCache(StylesCache):
    """A StylesCache that finishes each distinct content Strip once (per look of the widget)."""

    def __init__(self, limit: int = FINISHED_LINES) -> None:
        super().__init__()
        # id(content strip) -> (that strip, the look it was finished under, the finished strip);
        # holding the content strip keeps its id from being reused while the entry lives
        self._finished: LRUCache[int, tuple[Strip, tuple[object, ...], Strip]] = LRUCache(limit)
        self._look: tuple[object, ...] = ()
        self._rows = range(0)  # rows whose line is the widget's content (not border or padding)
        self.finished_count = 0  # lines finished by Textual (for tests and the benchmark)

    # clear() (a widget's full refresh) keeps the finished lines: an entry holds only for its own
    # content Strip and look, and the widget makes new content Strips when its lines change.

    def render(
        self,
        styles: StylesBase,
        size: Size,
        base_background: Color,
        background: Color,
        render_content_line: RenderLineCallback,
        filters: Sequence[LineFilter],
        border_title: Label,
        border_subtitle: Label,
        content_size: Size | None = None,
        padding: Spacing | None = None,
        crop: Region | None = None,
        opacity: float = 1.0,
        ansi_theme: TerminalTheme = DEFAULT_TERMINAL_THEME,
        native_ansi: bool = False,
    ) -> list[Strip]:
        content = size if content_size is None else content_size
        pad = styles.padding if padding is None else padding
        hatch = styles.hatch if styles.has_rule("hatch") else None
        look = (size, content, pad, base_background, background, opacity, id(ansi_theme), native_ansi,
                styles.border, styles.outline, styles.tint, styles.text_opacity, hatch)
        if look != self._look:
            self._look = look  # one object while nothing changes: entries then compare by identity
        gutter = styles.gutter
        top = gutter.top
        outline = styles.outline
        first = max(top, 1 if outline[0][0] else 0)
        last = min(size.height - gutter.bottom, top + content.height, size.height - (1 if outline[2][0] else 0))
        self._rows = range(first, max(first, last))
        return super().render(styles, size, base_background, background, render_content_line, filters,
                              border_title, border_subtitle, content_size, padding, crop, opacity, ansi_theme,
                              native_ansi)

    def render_line(
        self,
        styles: StylesBase,
        y: int,
        size: Size,
        content_size: Size,
        padding: Spacing,
        base_background: Color,
        background: Color,
        render_content_line: RenderLineCallback,
        border_title: Label,
        border_subtitle: Label,
        opacity: float,
        ansi_theme: TerminalTheme,
        native_ansi: bool,
    ) -> Strip:
        if y not in self._rows:  # a border, outline or padding row: Textual's own row cache does
            return super().render_line(styles, y, size, content_size, padding, base_background, background,
                                       render_content_line, border_title, border_subtitle, opacity, ansi_theme,
                                       native_ansi)
        content = render_content_line(y - styles.gutter.top)
        look = self._look
        entry = self._finished.get(id(content))
        if entry is not None and entry[0] is content and (entry[1] is look or entry[1] == look):
            return entry[2]
        strip = super().render_line(styles, y, size, content_size, padding, base_background, background,
                                    lambda _y: content, border_title, border_subtitle, opacity, ansi_theme,
                                    native_ansi)
        self.finished_count += 1
        self._finished[id(content)] = (content, look, strip)
        return strip
