"""A preset's label and hardware line in the user's language, from the preset file alone (catalog/preset_words.py)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from specview.catalog.preset_words import preset_words
from specview.catalog.presets import load_preset_file, load_presets
from specview.kernel.errors import PresetError
from specview.texts.catalog import catalog, languages

CJK = re.compile(r"[\u4e00-\u9fff]")
SHIPPED = Path(__file__).resolve().parents[3] / "specview" / "presets"


def _chinese_problems(path: Path) -> list[str]:
    """What a preset file lacks to read in Chinese: a `[words.zh]` table (a line it leaves out is the
    deliberate fallback to English), whose lines are Chinese and not the English again."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    table = data.get("words", {}).get("zh")
    if table is None:
        return [f"{path.name}: no [words.zh] (give the Chinese, or an empty table to show the English on purpose)"]
    return [f"{path.name}: words.zh.{key} is not Chinese or repeats the English" for key, value in table.items()
            if not CJK.search(value) or value == data[key]]


def test_every_shipped_preset_has_chinese_words_or_says_english_on_purpose() -> None:
    files = sorted(SHIPPED.glob("*.toml"))
    assert files and [p for f in files for p in _chinese_problems(f)] == []
    for preset in load_presets(Path("/nonexistent")).values():
        label, hardware = preset_words(preset, "zh")
        assert CJK.search(label) and CJK.search(hardware), preset.id


def test_a_copied_preset_with_a_new_id_is_one_file(tmp_path: Path) -> None:
    """A new preset needs no second file: no catalog holds a copy of any preset's English."""
    text = (SHIPPED / "glm-5.2-mtp.toml").read_text(encoding="utf-8").replace('id = "glm-5.2-mtp"', 'id = "glm-copy"')
    (tmp_path / "glm-copy.toml").write_text(text, encoding="utf-8")
    copy = load_presets(tmp_path)["glm-copy"]
    assert _chinese_problems(tmp_path / "glm-copy.toml") == []
    assert preset_words(copy, "zh") == preset_words(load_presets(Path("/nonexistent"))["glm-5.2-mtp"], "zh")
    assert preset_words(copy, "en") == (copy.label, copy.hardware)
    for lang in languages():
        assert not [key for key in catalog(lang) if key.startswith("presetword.")], lang


def test_a_line_left_out_is_shown_in_english(tmp_path: Path) -> None:
    text = (SHIPPED / "ngram.toml").read_text(encoding="utf-8")
    without = text[:text.index("[words.zh]")] + '[words.zh]\nlabel = "我的 n-gram"\n'
    (tmp_path / "ngram.toml").write_text(without, encoding="utf-8")
    mine = load_presets(tmp_path)["ngram"]  # a user file that replaces a shipped id: its own words
    assert preset_words(mine, "zh") == ("我的 n-gram", mine.hardware)
    assert _chinese_problems(tmp_path / "ngram.toml") == []
    (tmp_path / "ngram.toml").write_text(text[:text.index("[words.zh]")], encoding="utf-8")
    plain = load_presets(tmp_path)["ngram"]
    assert preset_words(plain, "zh") == (plain.label, plain.hardware)
    assert _chinese_problems(tmp_path / "ngram.toml") != []


@pytest.mark.parametrize("table", ['[words.fr]\nlabel = "x"', '[words.zh]\nlabel = 3', '[words.zh]\ncolour = "红"',
                                   '[words]\nzh = "中文"'])
def test_a_bad_words_table_names_the_file(tmp_path: Path, table: str) -> None:
    text = (SHIPPED / "ngram.toml").read_text(encoding="utf-8")
    path = tmp_path / "bad.toml"
    path.write_text(text[:text.index("[words.zh]")] + table + "\n", encoding="utf-8")
    with pytest.raises(PresetError) as caught:
        load_preset_file(path)
    assert str(path) in str(caught.value) and "words" in str(caught.value)
