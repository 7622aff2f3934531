"""The screen under `specview learn`: a line that says how to open a lesson."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static

from specview.texts.catalog import text


class LearnHome(Screen[None]):
    """What is left when every lesson is closed: `l` opens the index, `q` quits."""

    def __init__(self, lang: str = "en") -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        yield Static(text("learn.home", self.lang), id="learn-home", markup=False)
        yield Footer()
