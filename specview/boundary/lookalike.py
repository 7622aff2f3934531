"""Text as a reader makes it out: look-alike characters taken as the ones they stand for.

A key echoed back fullwidth (`ｓｋ-…`), with a space or a combining accent after each character,
in another letter case or with invisible characters between its characters, still reads as the
key; `＝SUM(1,1)` or ` =1+1` still reads as a formula to a spreadsheet. `folded` says what a
reader sees: each character in its NFKC compatibility form (fullwidth, superscript, circled,
mathematical letters → the plain letter), case folded, without combining marks (an accent
composed into its letter included), spaces and the characters masking sees through
(boundary/invisible.py). Masking (boundary/secrets.py) and CSV cells (boundary/csv_cell.py)
compare folded text; `folded_with_origins` maps a folded span back to the original characters.
"""

from __future__ import annotations

import unicodedata

from specview.boundary.invisible import INVISIBLE

MAX_CACHED = 1 << 16  # distinct characters remembered: a hostile stream of every code point stays bounded


def fold_char(ch: str) -> str:
    """What one character reads as (see the module docstring); "" for one a reader does not see."""
    if ch.isspace() or INVISIBLE.match(ch):
        return ""
    compatible = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", ch).casefold())
    return "".join(c for c in compatible
                   if not (unicodedata.category(c).startswith("M") or c.isspace() or INVISIBLE.match(c)))


class _FoldTable(dict[int, str | None]):
    """`str.translate`'s table: each code point's fold, worked out the first time it is met (None
    for nothing: what keeps `translate` on its fast path for ASCII)."""

    def __missing__(self, code: int) -> str | None:
        out = fold_char(chr(code)) or None
        if len(self) < MAX_CACHED:
            self[code] = out
        return out


_TABLE = _FoldTable()


def folded(text: str) -> str:
    """`text` as a reader makes it out, character by character."""
    return text.translate(_TABLE)


def folded_with_origins(text: str) -> tuple[str, list[int]]:
    """`folded(text)`, and for each of its characters the index in `text` of the character it came from."""
    parts: list[str] = []
    origins: list[int] = []
    for index, ch in enumerate(text):
        out = _TABLE[ord(ch)]
        if out:
            parts.append(out)
            origins.extend([index] * len(out))
    return "".join(parts), origins


def is_mark(ch: str) -> bool:
    """Whether `ch` is a combining mark (drawn on the character before it)."""
    return unicodedata.category(ch).startswith("M")
