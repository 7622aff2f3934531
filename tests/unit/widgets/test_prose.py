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


def test_a_term_joined_by_no_break_spaces_is_never_broken_at_any_width() -> None:
    nb = "\u00a0"
    terms = [f"min(1,{nb}p/q)", f"α{nb}={nb}Σ{nb}min(p,{nb}q)", f"↑/↓{nb}选择行", f"r{nb}重新开始"]
    text = f"以 {terms[0]} 的概率保留草稿，重叠为 {terms[1]}：按 {terms[2]}，或按 {terms[3]} 从头再来。"
    for width in range(20, 60):  # every term, with the punctuation that may not start a line, fits
        lines = wrap(text, width)
        # a no-break space is drawn as a plain one (a command copied off the screen runs)
        assert "".join(lines).replace(" ", "") == text.replace(nb, "").replace(" ", "")
        for term in terms:
            assert any(term.replace(nb, " ") in line for line in lines), (width, term, lines)
    plain = text.replace(nb, " ")  # without them the same text does break inside a term somewhere
    assert any(not all(any(t.replace(nb, " ") in line for line in wrap(plain, w)) for t in terms)
               for w in range(20, 60))
