"""Finishing a stream's lines in one pass, for a widget whose box is plain.

Textual finishes every line a widget renders: the content Strip is cut or padded to the
content width, the horizontal padding is added, and each line filter of the app (ANSI colours
to true colour, NO_COLOR, dim) maps every segment's style, each step a new Strip with its own
caches. For a stream that adds twenty lines a frame to each of four panes, those steps cost
more than the text. When the box is plain (no border, outline, tint, hatch, opacity or
vertical padding: the token view's own CSS), a finished line is only the content in finished
styles between two runs of padding, so it is built that way here, once, with its cell length
known. A box that is not plain is left to Textual.

The built-in filters map each segment's style and nothing else, so they are applied to a
style once, not to every segment of every line; any other filter is applied to the whole
Strip, as Textual does.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.color import Color
from textual.filter import ANSIToTruecolor, DimFilter, LineFilter, Monochrome, NoColor
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

from specview.widgets.line_strip import LineStrip

# filters known to map each segment's style alone (textual.filter's own)
STYLE_ONLY_FILTERS = (ANSIToTruecolor, DimFilter, Monochrome, NoColor)


class PlainBox:
    """One look of a plain widget box: its widths, padding, colours and filters."""

    def __init__(self, width: int, text_width: int, content_width: int, pad: tuple[int, int], inner: RichStyle,
                 filters: tuple[LineFilter, ...], background: Color) -> None:
        self.width = width  # of a finished line
        self.text_width = text_width  # where the widget's own text (and its blank fill) ends
        self.style_filters = tuple(f for f in filters if isinstance(f, STYLE_ONLY_FILTERS))
        # a filter that only joins neighbours of one style says so (`merges_runs`): joined here, as
        # the line is built, rather than in a second Strip
        self.merge = any(getattr(f, "merges_runs", False) for f in filters)
        self.strip_filters = tuple(f for f in filters
                                   if not isinstance(f, STYLE_ONLY_FILTERS) and not getattr(f, "merges_runs", False))
        self.background = background
        self._finished: dict[RichStyle | None, RichStyle | None] = {}
        self._blank: tuple[RichStyle, Strip] | None = None
        self.inner = self.finish(inner)
        left, right = pad
        right += content_width - text_width  # a scrollbar's column inside the content: Textual pads it so
        self._left = [Segment(" " * left, self.inner)] if left else []
        self._right = [Segment(" " * right, self.inner)] if right else []

    def finish(self, style: RichStyle | None) -> RichStyle | None:
        """A segment style as the filters leave it (remembered: a stream has a few styles)."""
        try:
            return self._finished[style]
        except KeyError:
            pass
        segments = [Segment(" ", style)]
        for line_filter in self.style_filters:
            segments = line_filter.apply(segments, self.background)
        self._finished[style] = finished = segments[0].style
        return finished

    def blank(self, fill: RichStyle) -> Strip:
        """A line with no text (one Strip for all of them: the caches downstream hit)."""
        if self._blank is None or self._blank[0] != fill:
            self._blank = (fill, self.line([], 0, self.finish(fill)))
        return self._blank[1]

    def line(self, content: list[Segment], cells: int, fill: RichStyle | None, *, joined: bool = False) -> Strip:
        """A finished line from content segments (finished styles) taking `cells` cells; the rest of
        text width is filled in `fill` (finished), as the widget's own blank cells are. `joined`:
        no two neighbours in `content` have equal styles, so a filter that joins runs has only the
        padding's edges left to join."""
        room = self.text_width - cells
        if room < 0:  # a character wider than the line: cut as Textual would
            strip = Strip(content, cells).crop_extend(0, self.text_width, fill)
            content, room, joined = list(strip), 0, False
        tail = [Segment(" " * room, fill)] if room else []
        if not self.merge:
            segments = [*self._left, *content, *tail, *self._right]
        elif joined:
            segments = _joined((self._left, content, tail, self._right))
        else:
            segments = list(Segment.simplify([*self._left, *content, *tail, *self._right]))
        strip = LineStrip(segments, self.width)
        for line_filter in self.strip_filters:
            strip = strip.apply_filter(line_filter, self.background)
        return strip


def _joined(parts: tuple[list[Segment], ...]) -> list[Segment]:
    """The parts end to end, each already joined within, joined where they meet (Segment.simplify's
    rule, on the few edges it could apply to)."""
    out: list[Segment] = []
    for part in parts:
        if not part:
            continue
        if out and (out[-1].style is part[0].style or out[-1].style == part[0].style) and not part[0].control:
            out[-1] = Segment(out[-1].text + part[0].text, out[-1].style)
            out += part[1:]
        else:
            out += part
    return out


class PlainBoxes:
    """The plain box of one widget now, kept while its look does not change."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] = ()
        self.box: PlainBox | None = None

    def of(self, widget: Widget, text_width: int) -> PlainBox | None:
        """The widget's plain box (None when Textual must finish its lines). `text_width` is where
        the widget's own text ends (its content width without a scrollbar's column)."""
        styles = widget.styles
        pad_top, pad_right, pad_bottom, pad_left = styles.padding
        if (pad_top or pad_bottom or any(edge[0] for edge in styles.border) or any(edge[0] for edge in styles.outline)
                or styles.tint.a or widget.opacity != 1.0 or styles.text_opacity != 1.0
                or (styles.has_rule("hatch") and styles.hatch != "none")):
            self._key, self.box = (), None
            return None
        base_background, background = widget.background_colors
        filters = tuple(widget.get_line_filters())
        width = widget.region.width
        content_width = widget.content_region.width
        key = (width, content_width, text_width, pad_left, pad_right, base_background, background, filters)
        if key != self._key or self.box is None:
            inner = Style(background=base_background + background).rich_style
            self._key = key
            self.box = PlainBox(width, text_width, content_width, (pad_left, pad_right), inner, filters, background)
        return self.box
