"""How wide a terminal draws text: the C library's wcwidth, which tmux (and xterm, VTE) draw by.

Rich keeps its own tables; where the two disagree, a row Rich lays out in N cells takes another
number on the screen. Tests compare what specview shows against this.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import locale
from collections.abc import Callable
from functools import cache


@cache
def _wcwidth() -> Callable[[str], int]:
    locale.setlocale(locale.LC_CTYPE, "C.UTF-8")  # wcwidth answers -1 for every non-ASCII character in "C"
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    libc.wcwidth.argtypes = [ctypes.c_wchar]
    libc.wcwidth.restype = ctypes.c_int
    return libc.wcwidth  # type: ignore[no-any-return]


def drawn_width(text: str) -> int:
    """Cells a wcwidth terminal advances for `text` (a character it cannot draw: none)."""
    width = _wcwidth()
    return sum(max(width(ch), 0) for ch in text)


def cells(line: str) -> list[str]:
    """A captured screen line cell by cell, as the terminal drew it: a wide character fills its
    first cell and leaves "" in its second; a zero-width one joins the character before it."""
    width = _wcwidth()
    out: list[str] = []
    for ch in line:
        w = width(ch)
        if w <= 0:
            if out:
                out[-1] += ch
            continue
        out.append(ch)
        out.extend([""] * (w - 1))
    return out
