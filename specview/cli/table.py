"""Right-aligned fixed-width tables for the terminal (bench, sweep): widths in terminal cells,
so Chinese headers (two cells a character) line up."""

from __future__ import annotations

from collections.abc import Sequence


def right_aligned(rows: Sequence[Sequence[str]], first_width: int = 0) -> list[str]:
    """`rows` (the header first) as lines, each column right-aligned to its widest cell;
    the first column at least `first_width` cells."""
    from rich.cells import cell_len

    if not rows:
        return []
    widths = [max(cell_len(row[i]) for row in rows) for i in range(len(rows[0]))]
    widths[0] = max(widths[0], first_width)
    return ["  ".join(" " * (w - cell_len(cell)) + cell for cell, w in zip(row, widths, strict=True))
            for row in rows]
