"""Chinese and English wrapping for the Learn screens' prose."""

from __future__ import annotations

from rich.cells import cell_len

from specview.widgets.prose import wrap


def test_chinese_breaks_between_characters_and_fills_the_line() -> None:
    text = ("以 min(1, p(x)/q(x)) 的概率保留草稿 x，否则从 q 未覆盖的部分重新采样："
            "无论草稿如何，输出都严格服从目标模型的 p。")
    lines = wrap(text, 40)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(cell_len(line) <= 40 for line in lines)
    assert all(cell_len(line) >= 36 for line in lines[:-1])  # no ragged gap before a long Chinese run


def test_closing_punctuation_never_starts_a_line_and_opening_never_ends_one() -> None:
    for width in range(6, 30):
        for line in wrap("甲乙丙丁，戊己庚辛。（壬癸）子丑寅卯：辰巳午未、申酉戌亥！", width):
            assert line[:1] not in "，。）：、！" and line[-1:] != "（"


def test_english_wraps_at_spaces_and_keeps_paragraphs() -> None:
    assert wrap("one two three four", 9) == ["one two", "three", "four"]
    assert wrap("a\n\nb", 10) == ["a", "", "b"]
    assert wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"]  # a word longer than a line is cut
