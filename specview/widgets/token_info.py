"""One line about the selected token (the screen writes it), or a hint when none is selected."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from specview.widgets.settled import Settled


class TokenInfo(Static, Settled):
    """Shows the selected token's description, or a hint."""

    DEFAULT_CSS = "TokenInfo { height: 1; color: $text-muted; padding: 0 1; }"

    def __init__(self, hint: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.hint = hint

    def on_mount(self) -> None:
        self.update(Text(self.hint))

    def show(self, description: str | None) -> None:
        """A token's description (None: the hint)."""
        shown = self.hint if description is None else description
        self.update(Text(shown, no_wrap=True, overflow="ellipsis"))
