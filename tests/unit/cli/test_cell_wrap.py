"""Help text wrapped by terminal cells (cli/cell_wrap.py): Chinese breaks between characters, a Latin word,
option name or number never, and a closing mark never starts a line."""

from __future__ import annotations

import textwrap

import pytest

from specview.cli.cell_wrap import CLOSING, OPENING, cells, units, wrap


def test_cells_counts_wide_characters_twice() -> None:
    assert cells("token") == 5
    assert cells("草稿模型") == 8
    assert cells("γ，1..32") == 1 + 2 + 5


def test_chinese_wraps_within_the_width() -> None:
    text = "每轮草稿数 γ，1..32（默认：预设的值），或 auto：本地运行根据自己测得的成本与接受情况选择 γ（0 = 关闭）"
    lines = wrap(text, 40)
    assert all(cells(line) <= 40 for line in lines) and len(lines) >= 2
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    by_characters = textwrap.wrap(text, 40)  # what argparse did: 40 characters, more cells
    assert max(len(line) for line in by_characters) <= 40 < max(cells(line) for line in by_characters)


@pytest.mark.parametrize("width", range(8, 41))
def test_no_line_starts_with_a_closing_mark_or_ends_with_an_opening_one(width: int) -> None:
    text = "用 --draft D.gguf（n-gram）起草，目标模型验证；达到即为“停滞”（默认：2）。接受、拒绝、修正"
    for line in wrap(text, width):
        assert line[0] not in CLOSING and line[-1] not in OPENING, (width, line)


@pytest.mark.parametrize("width", range(6, 30))
def test_latin_words_options_and_numbers_stay_whole(width: int) -> None:
    text = "需要--draft D.gguf与--max-tokens 128，以及https://api.openai.com和qwen3.6-mtp"
    lines = wrap(text, width)
    for word in ("--draft", "D.gguf", "--max-tokens", "128，", "https://api.openai.com", "qwen3.6-mtp"):
        assert any(word in line for line in lines), (word, lines)
    assert all(cells(line) <= width or len(units(line)) == 1 for line in lines), lines  # only a unit too wide overflows


def test_a_unit_wider_than_the_line_gets_a_line_of_its_own() -> None:
    assert wrap("见 --chat-template-that-is-long 吧", 10) == ["见", "--chat-template-that-is-long", "吧"]


def test_english_wraps_as_textwrap_does() -> None:
    text = "give up on a stream whose headers, or next event, have not come within S seconds (default: 60)"
    for width in (20, 33, 54):
        assert wrap(text, width) == textwrap.wrap(text, width)
