"""A finished line that reference counting frees: a Strip without the cycle Textual's own makes.

Textual's `Strip.divide` caches what it returns in the strip itself, and for the commonest cut,
a line that no other widget overlaps, what it returns is `[self]`: every line the compositor draws
then holds itself, and only the cyclic collector can free it. A stream that drops twenty lines a
frame from each of four panes left about 8,000 such lines (60,000 objects with their caches) for
each collection of the older generation to find: a third of a second at once, every few seconds.
This strip returns `[self]` for that cut without keeping it, and keeps only the caches a finished
line uses (the compositor's cuts; a crop when the view is clipped), not seven: each cache is an
object the collector walks while the line lives.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.segment import Segment
from textual.cache import FIFOCache
from textual.strip import Strip


class _Unkept:
    """A cache that keeps nothing (what a finished line is never asked twice)."""

    __slots__ = ()

    def get(self, key: object, default: Any = None) -> Any:
        return default

    def __setitem__(self, key: object, value: object) -> None:
        pass


UNKEPT: Any = _Unkept()


class LineStrip(Strip):
    """A Strip for a finished line (see the module's note); it behaves as a Strip in every way."""

    __slots__ = ()

    def __init__(self, segments: Iterable[Segment], cell_length: int | None = None) -> None:
        self._segments = list(segments)
        self._cell_length = cell_length
        self._divide_cache = FIFOCache(4)
        self._crop_cache = FIFOCache(16)
        self._style_cache = self._filter_cache = self._line_length_cache = UNKEPT
        self._crop_extend_cache = self._offsets_cache = UNKEPT
        self._render_cache = None
        self._link_ids = None
        self._cell_count = None

    def divide(self, cuts: Iterable[int]) -> Sequence[Strip]:
        cell_length = self.cell_length
        cuts = [cut for cut in cuts if cut <= cell_length]
        if cuts == [cell_length]:  # the whole line: itself, not kept in itself
            return [self]
        return super().divide(cuts)
