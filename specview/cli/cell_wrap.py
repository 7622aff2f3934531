"""Wrapping by terminal cells, for help text that mixes Chinese and Latin words.

textwrap counts characters and breaks only at spaces, so a line of Chinese (two cells a
character) runs past the terminal and a run of Chinese without spaces never breaks at all.
Here a line breaks at a space or between two wide characters, never inside a Latin word, an
option name or a number, and a closing mark (，。；：）、…) never starts a line.
"""

from __future__ import annotations

import unicodedata

CLOSING = frozenset("，。；：、！？）》」』】”’…,.;:!?)]}")  # stays at the end of the line before
OPENING = frozenset("（《「『【“‘")  # stays with what follows it


def cells(text: str) -> int:
    """The columns `text` takes on a terminal (East Asian wide and full-width characters take two)."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in "WF"


def _pieces(word: str) -> list[str]:
    """A word without spaces cut where a line may break: around each wide character."""
    out: list[str] = []
    for ch in word:
        if out and not _wide(ch) and not _wide(out[-1][-1]):
            out[-1] += ch  # a Latin word, option or number stays whole
        elif out and (ch in CLOSING or out[-1][-1] in OPENING):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def units(text: str) -> list[tuple[bool, str]]:
    """(a space before it, the unit): the pieces no line break may go inside."""
    return [(i == 0, piece) for word in text.split() for i, piece in enumerate(_pieces(word))]


def wrap(text: str, width: int) -> list[str]:
    """`text`'s words filled into lines of at most `width` cells (a unit wider than that gets a line of its
    own: an option name is never cut); runs of whitespace read as one space, as textwrap reads them."""
    lines: list[str] = []
    line, used = "", 0
    for spaced, unit in units(text):
        size, gap = cells(unit), 1 if spaced and line else 0
        if line and used + gap + size > width:
            lines.append(line)
            line, used = unit, size
        else:
            line, used = line + " " * gap + unit, used + gap + size
    if line:
        lines.append(line)
    return lines
