"""The per-position heading with the reading the bars show, in words (the reading:
specview/features/watch/model/position_reading.py)."""

from __future__ import annotations

from specview.texts.catalog import text


def reading_heading(reading: str, lang: str) -> str:
    """"accepted by position (last interval) · marginal: accepted at k ÷ drafts …"."""
    return f"{text('watch.by_position', lang)} · {text(f'watch.reading.{reading}', lang)}"
