"""A paragraph that wraps Chinese as well as English: lines may break between CJK characters.

Textual and Rich break lines only at spaces, so a Chinese sentence after a space moves to the next
line whole and leaves a ragged gap. This widget wraps by itself: a break is allowed after a space
and between two characters when either is CJK, except before closing punctuation (，。）…) or after
opening punctuation (（「…), the usual line-breaking rules for Chinese. A no-break space (U+00A0)
binds a term into one unit — a short run joined by it ("min(1,\u00a0p/q)", a key and its label, a
command) and the CJK word just before it ("定理\u00a03.8") — and is drawn as a plain space, so a
command copied off the screen runs.
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget

_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")
_NO_START = set("，。、：；！？）」』】》〉…—％,.;:!?)]}")
_NO_END = set("（「『【《〈([{")
_TERM = re.compile(r"[^ ]*\u00a0[^ ]*")  # a run without ordinary spaces that holds a no-break space
MAX_TERM = 24  # cells: longer runs are sentences with a formula inside, wrapped as usual


NO_BREAK_SPACE = "\u00a0"


def plain(text: str) -> str:
    """`text` with its no-break spaces as plain ones: for what is not drawn by Prose (a notification)."""
    return text.replace(NO_BREAK_SPACE, " ")


def _breakable(before: str, after: str) -> bool:
    if NO_BREAK_SPACE in (before, after):
        return False
    if before == " ":
        return True
    if after == " " or after in _NO_START or before in _NO_END:
        return False
    return bool(_CJK.match(before) or _CJK.match(after))


def _held(paragraph: str) -> set[int]:
    """Where a break is not allowed although the characters would allow one: inside a short term
    joined by no-break spaces (a formula, a key and its label, "↑/↓\u00a0选择行"), CJK or not."""
    held: set[int] = set()
    for term in _TERM.finditer(paragraph):
        if cell_len(term.group()) <= MAX_TERM:
            held |= set(range(term.start() + 1, term.end()))
    return held


_IDEOGRAPH = re.compile(r"[\u4e00-\u9fff]")
GLUED_IDEOGRAPHS = 4  # a CJK word bound to a number by a no-break space ("定理 3.8"): at most this long


def _glued(paragraph: str) -> set[int]:
    """Indices i where a break before paragraph[i] would split a term a no-break space binds: the
    CJK word just before it ("推论" of "推论 3.9") stays with it."""
    inside: set[int] = set()
    for j, ch in enumerate(paragraph):
        if ch != NO_BREAK_SPACE:
            continue
        k = j
        while k > 0 and j - k < GLUED_IDEOGRAPHS and _IDEOGRAPH.match(paragraph[k - 1]):
            inside.add(k)
            k -= 1
    return inside


def _units(paragraph: str) -> list[str]:
    """The paragraph cut at every allowed break (spaces stay at the end of their unit)."""
    units: list[str] = []
    start = 0
    held = _held(paragraph) | _glued(paragraph)
    for i in range(1, len(paragraph)):
        if i not in held and _breakable(paragraph[i - 1], paragraph[i]):
            units.append(paragraph[start:i])
            start = i
    if paragraph:
        units.append(paragraph[start:])
    return units


def wrap(text: str, width: int) -> list[str]:
    """`text` as lines of at most `width` cells (a unit wider than a line is cut)."""
    width = max(1, width)
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for unit in _units(paragraph):
            if cell_len((line + unit).rstrip()) <= width:
                line += unit
                continue
            if line.strip():
                lines.append(line.rstrip())
            line = unit.lstrip()
            while cell_len(line.rstrip()) > width:  # longer than a whole line: cut it
                cut = ""
                for ch in line:
                    if cell_len(cut + ch) > width:
                        break
                    cut += ch
                lines.append(cut)
                line = line[len(cut) :]
        lines.append(line.rstrip())
    return [plain(line) for line in lines]


class Prose(Widget):
    """Plain text (never markup), wrapped by `wrap`; its height follows the width."""

    DEFAULT_CSS = "Prose { height: auto; }"

    def __init__(self, text: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.text = text

    def update(self, text: str) -> None:
        """Show another text."""
        if text != self.text:
            self.text = text
            self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(wrap(self.text, width))

    def render(self) -> Text:
        return Text("\n".join(wrap(self.text, self.content_region.width or self.size.width)))


class Wrapped:
    """A Rich renderable of `text` wrapped by `wrap` at whatever width it is given (list options)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n".join(wrap(self.text, options.max_width)))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, max(cell_len(line) for line in self.text.split("\n")))
