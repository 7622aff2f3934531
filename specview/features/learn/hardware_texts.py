"""The shipped accelerators' and model shapes' words in the user's language (screens 1, 2 and 11).

The hardware catalogue (catalog/hardware.py) keeps one English label and source line per entry,
as data; the Learn screens show them through `learn.hardware.*` where the catalog has a text, so
"dense 8B · BF16" reads "稠密 8B · BF16" in Chinese and a source line says what each source is.
A user's own entry (none has a text) keeps its own words.
"""

from __future__ import annotations

from specview.texts.catalog import catalog, fill


def shape_label(shape_id: str, label: str, lang: str) -> str:
    """A model shape's label in `lang`, else its own."""
    key = f"learn.hardware.shape.{shape_id}"
    return fill(key, lang) if key in catalog(lang) else label


def chip_label(chip_id: str, label: str, lang: str) -> str:
    """An accelerator's name in `lang` where it has words to translate ("(top bin)"), else its own."""
    key = f"learn.hardware.chip.{chip_id}"
    return fill(key, lang) if key in catalog(lang) else label


def chip_source(chip_id: str, source: str, lang: str) -> str:
    """Where an accelerator's figures come from, in `lang`, else the catalogue's own line."""
    key = f"learn.hardware.source.{chip_id}"
    return fill(key, lang) if key in catalog(lang) else source
