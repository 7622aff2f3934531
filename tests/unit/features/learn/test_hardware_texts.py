"""Every shipped model shape and accelerator has its words on Learn 1 and 2 in both languages."""

from __future__ import annotations

import pytest

from specview.catalog.hardware import ACCELERATORS, MODEL_SHAPES
from specview.features.learn.hardware_texts import chip_source, shape_label
from specview.texts.catalog import catalog


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_shipped_shape_and_chip_has_a_text(lang: str) -> None:
    for shape in MODEL_SHAPES:
        assert f"learn.hardware.shape.{shape.id}" in catalog(lang), shape.id
    for chip in ACCELERATORS:
        assert f"learn.hardware.source.{chip.id}" in catalog(lang), chip.id


def test_chinese_words_replace_the_catalogues_english_and_an_unknown_entry_keeps_its_own() -> None:
    shape = MODEL_SHAPES[0]
    assert shape_label(shape.id, shape.label, "en") == shape.label
    assert shape_label("dense-8b-bf16", "dense 8B · BF16", "zh") == "稠密 8B · BF16"
    assert "速查表" in chip_source("h100-sxm", "cheat sheet", "zh")
    assert shape_label("my-own", "my own 3B", "zh") == "my own 3B"
    assert chip_source("my-chip", "my notes", "zh") == "my notes"
