"""F1 / ?: keys, marks and definitions, in the chosen language."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from specview.texts.catalog import text


class HelpScreen(ModalScreen[None]):
    """A scrollable help panel; any of esc / q / F1 closes it."""

    BINDINGS = [
        Binding("escape,q,f1,question_mark", "dismiss", "close", id="help.close"),
    ]

    def __init__(self, lang: str = "en") -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = text("help_title", self.lang)
            yield Static(text("help", self.lang).strip("\n"), markup=False)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
