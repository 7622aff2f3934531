"""A one-line text that redraws without asking for a new layout (Static.update does)."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


class TextLine(Widget):
    """Fixed height 1; `show()` refreshes only this line, and only when the text changed."""

    DEFAULT_CSS = "TextLine { height: 1; }"

    def __init__(self, text: str | Text = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._text = Text(text, no_wrap=True, overflow="ellipsis") if isinstance(text, str) else text

    def show(self, text: str | Text) -> None:
        new = Text(text, no_wrap=True, overflow="ellipsis") if isinstance(text, str) else text
        if new.plain == self._text.plain and new.spans == self._text.spans:
            return
        self._text = new
        self.refresh()

    def render(self) -> Text:
        return self._text
