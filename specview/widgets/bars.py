"""Block-character bars, shared by the gauges and the per-position chart."""

from __future__ import annotations

_EIGHTHS = " ▏▎▍▌▋▊▉█"


def bar(fraction: float, width: int) -> str:
    """A left-aligned bar of `width` cells filled to `fraction` (clamped to 0..1)."""
    if width <= 0:
        return ""
    cells = max(0.0, min(1.0, fraction)) * width
    full = int(cells)
    part = _EIGHTHS[int((cells - full) * 8)] if full < width else ""
    return ("█" * full + part).ljust(width)


def fit(text: str, width: int) -> str:
    """`text` cut (with …) or padded to exactly `width` terminal cells; wide characters count twice."""
    from rich.cells import cell_len

    cells = len(text) if text.isascii() else cell_len(text)  # most cells are ASCII: no width table
    if cells <= width:
        return text + " " * (width - cells)
    out = ""
    for ch in text:
        if cell_len(out + ch) > width - 1:
            break
        out += ch
    return out + "…" + " " * (width - 1 - cell_len(out))
