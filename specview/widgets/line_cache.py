"""Drawn lines kept by their index, bounded: a plain dict, so what it lets go is freed at once.

Textual's LRUCache links its entries in a ring of lists; cleared, the ring and every line held in
it become garbage that only the cyclic collector can find. A fast stream clears its view's lines
at every prune (several times a second across four panes): 25,000 lines, 290,000 objects, waited
in the older generation between collections, and a collection of it stopped the screen for 0.4 s.
"""

from __future__ import annotations

from typing import Generic, TypeVar

Line = TypeVar("Line")


class LineCache(Generic[Line]):
    """Up to `limit` lines by index; when full, the one kept longest goes first."""

    def __init__(self, limit: int) -> None:
        self._lines: dict[int, Line] = {}
        self._limit = max(1, limit)

    def get(self, y: int) -> Line | None:
        return self._lines.get(y)

    def __setitem__(self, y: int, line: Line) -> None:
        lines = self._lines
        if y not in lines and len(lines) >= self._limit:
            del lines[next(iter(lines))]
        lines[y] = line

    def __len__(self) -> int:
        return len(self._lines)

    def discard(self, y: int) -> None:
        self._lines.pop(y, None)

    def clear(self) -> None:
        self._lines.clear()
