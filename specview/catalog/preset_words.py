"""A preset's label and hardware line in the user's language, from the preset file itself.

A preset file is written in English (`label`, `hardware`); its `[words.<lang>]` tables give the same two
lines in other languages (`[words.zh] label = "…"`). A line a table leaves out is shown in English: a
deliberate fallback, never a second copy of the English. A user's file is shown as its author wrote it,
in whichever languages it gives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from specview.kernel.errors import PresetError
from specview.texts.catalog import FALLBACK, languages

if TYPE_CHECKING:
    from specview.catalog.presets import Preset

WORD_KEYS = ("label", "hardware")


def parse_words(data: dict[str, Any], where: str) -> dict[str, dict[str, str]]:
    """The `[words.<lang>]` tables of one preset file: language → {label, hardware} (either may be missing)."""
    words = data.get("words", {})
    known = tuple(lang for lang in languages() if lang != FALLBACK)
    if not isinstance(words, dict):
        raise PresetError("methoderr.words", where=where, lang="*", known=", ".join(known))
    out: dict[str, dict[str, str]] = {}
    for lang, table in words.items():
        ok = (lang in known and isinstance(table, dict) and set(table) <= set(WORD_KEYS)
              and all(isinstance(v, str) for v in table.values()))
        if not ok:
            raise PresetError("methoderr.words", where=where, lang=lang, known=", ".join(known))
        out[lang] = {key: " ".join(value.split()) for key, value in table.items()}
    return out


def preset_words(preset: Preset, lang: str) -> tuple[str, str]:
    """(label, hardware) of `preset` as shown in `lang`: its own words there, else its English."""
    words = preset.words.get(lang, {})
    return words.get("label", preset.label), words.get("hardware", preset.hardware)
