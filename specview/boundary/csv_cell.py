"""A CSV cell that a spreadsheet reads as text, never as a formula.

OWASP's CSV injection rule: a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return
is written with a leading `'`. Spreadsheets trim a cell before they look, and some read `＝` as
`=`, so the first character that counts is the first a reader sees (boundary/lookalike.py:
NFKC, spaces, marks and invisible characters left out): ` =1+1` and `＝SUM(1,1)` are formulas too.
"""

from __future__ import annotations

from specview.boundary.lookalike import fold_char

FORMULA_STARTS = frozenset("=+-@")
CONTROL_STARTS = frozenset("\t\r")


def starts_a_formula(text: str) -> bool:
    """Whether a spreadsheet could take `text` for a formula (see the module docstring)."""
    if text[:1] in CONTROL_STARTS:
        return True
    for ch in text:
        seen = fold_char(ch)
        if seen:
            return seen[0] in FORMULA_STARTS
    return False


def csv_cell(value: object) -> str:
    """`value` as one CSV cell: None empty, a number as written, text with `'` before a formula."""
    if value is None:
        return ""
    shown = str(value)
    if isinstance(value, int | float):
        return shown  # ours, not from outside: -0.5 is a number, not a formula
    return "'" + shown if starts_a_formula(shown) else shown
