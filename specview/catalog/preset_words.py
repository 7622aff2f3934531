"""A shipped preset's label and hardware line in the user's language (texts/preset_words.*).

The preset files are written in English; the catalog holds each shipped preset's two lines in
every language (the English copy is checked against the file by a test). A user's preset file,
even one that replaces a shipped id, is shown as its author wrote it.
"""

from __future__ import annotations

from specview.catalog.presets import Preset
from specview.texts.catalog import catalog

SHIPPED = "shipped preset "  # how presets.py names a shipped preset's origin


def preset_words(preset: Preset, lang: str) -> tuple[str, str]:
    """(label, hardware) of `preset` as shown in `lang`."""
    if not preset.origin.startswith(SHIPPED):
        return preset.label, preset.hardware
    texts = catalog(lang)
    key = f"presetword.{preset.id}"
    return texts.get(f"{key}.label", preset.label), texts.get(f"{key}.hardware", preset.hardware)
