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
