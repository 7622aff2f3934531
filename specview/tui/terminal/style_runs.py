"""One SGR sequence per run of equal style: fewer bytes to the terminal on every line drawn.

Textual writes each segment as `ESC[<style>m text ESC[0m`. A widget line is often many
segments of one style (padding, borders, runs of accepted tokens split by the layout), so
merging neighbours of equal style before a line is written cuts the bytes a frame costs, which
is what a slow SSH link feels. Textual caches the filtered strip, so a line is merged once.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter


class MergeRuns(LineFilter):
    """Merge neighbouring segments of the same style (Rich's Segment.simplify)."""

    merges_runs = True  # and nothing else: a widget that builds its own lines may join them itself

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if len(segments) < 2:
            return segments
        return list(Segment.simplify(segments))
