"""The screen under `specview learn`: a line that says how to open a lesson."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static

from specview.texts.catalog import fill
from specview.widgets.bindings import first_key


class LearnHome(Screen[None]):
    """What is left when every lesson is closed: `l` opens the index, `q` quits (or the keys the
    user's keymap gives them)."""

    def __init__(self, lang: str = "en") -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        said = fill("learn.home", self.lang, learn=first_key(self.app, "app.learn"),
                    quit=first_key(self.app, "app.quit"))
        yield Static(said, id="learn-home", markup=False)
        yield Footer()
