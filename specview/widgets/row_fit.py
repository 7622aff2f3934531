"""One row of segments made exactly a widget's width, as a no-wrap rich Text with overflow "ellipsis"
would be drawn: cut with "…" (in the style of the last piece kept), or padded in the widget's style."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip


def fit_row(segments: list[Segment], width: int, base: Style) -> Strip:
    """`segments` as one row of `width` cells."""
    if width < 1:
        return Strip.blank(0, base)
    strip = Strip(segments)
    if strip.cell_length > width:
        last = segments[-1].style if segments else base
        strip = Strip([*strip.crop(0, width - 1), Segment("…", last)])
    return strip.extend_cell_length(width, base)
