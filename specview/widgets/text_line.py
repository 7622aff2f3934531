"""A one-line text that redraws without asking for a new layout (Static.update does).

A plain string is sanitised here (it may hold a model id or a label from outside) and never
read as markup; a `Text` is taken as the caller built it (from sanitised pieces).
"""

from __future__ import annotations

from rich.text import Text

from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.text import sanitize
from specview.widgets.settled import Settled


def _line(text: str) -> Text:
    return Text(sanitize(text, MAX_SHOWN, one_line=True), no_wrap=True, overflow="ellipsis")


class TextLine(Settled):
    """Fixed height 1; `show()` refreshes only this line, and only when the text changed."""

    # Never wrap: a long word (a hostile model id) would push the rest onto a hidden second line.
    DEFAULT_CSS = "TextLine { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }"

    def __init__(self, text: str | Text = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._text = _line(text) if isinstance(text, str) else text

    def show(self, text: str | Text) -> None:
        new = _line(text) if isinstance(text, str) else text
        if new.plain == self._text.plain and new.spans == self._text.spans:
            return
        self._text = new
        self.refresh()

    def render(self) -> Text:
        return self._text
