"""The per-position heading with the reading the bars show, in words (the reading:
specview/features/watch/model/position_reading.py)."""

from __future__ import annotations

from specview.texts.catalog import text


def reading_heading(reading: str, lang: str) -> str:
    """"accepted by position (last interval)", and under it "marginal: ÷ drafts …"."""
    return f"{text('watch.by_position', lang)}\n{text(f'watch.reading.{reading}', lang)}"
