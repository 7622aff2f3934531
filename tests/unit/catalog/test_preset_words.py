"""A shipped preset's label and hardware line in the user's language (catalog/preset_words.py)."""

from __future__ import annotations

import re
from pathlib import Path

from specview.catalog.preset_words import preset_words
from specview.catalog.presets import Preset, load_presets
from specview.texts.catalog import catalog

CJK = re.compile(r"[\u4e00-\u9fff]")


def _shipped() -> list[Preset]:
    return list(load_presets(Path("/nonexistent")).values())


def test_the_english_copy_is_the_preset_files_own_words() -> None:
    """texts/preset_words.en.toml repeats each file's label and hardware: an edit to one fails here."""
    for preset in _shipped():
        assert preset_words(preset, "en") == (preset.label, preset.hardware), preset.id
    shipped = {p.id for p in _shipped()}
    named = {key.removeprefix("presetword.").rsplit(".", 1)[0] for key in catalog("en")
             if key.startswith("presetword.")}
    assert named == shipped


def test_every_shipped_preset_reads_in_chinese() -> None:
    for preset in _shipped():
        label, hardware = preset_words(preset, "zh")
        assert CJK.search(label) and CJK.search(hardware), preset.id
        assert (label, hardware) != (preset.label, preset.hardware)


def test_a_user_preset_is_shown_as_its_author_wrote_it(tmp_path: Path) -> None:
    shipped = (Path(__file__).resolve().parents[3] / "specview" / "presets" / "ngram.toml").read_text(encoding="utf-8")
    (tmp_path / "mine.toml").write_text(shipped.replace('label = "', 'label = "my own ', 1), encoding="utf-8")
    mine = load_presets(tmp_path)["ngram"]  # a user file that replaces a shipped id
    assert preset_words(mine, "zh") == (mine.label, mine.hardware) and mine.label.startswith("my own ")
