"""What every Learn screen shares: a title, its idea, a body, and esc to go back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from specview.texts.catalog import text
from specview.widgets.bindings import bind, localize
from specview.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from specview.learn.registry import Lesson


class LearnScreen(Screen[None]):
    """Subclasses compose `body()` and update it from `numbers()` when a control moves."""

    BINDINGS = [bind("escape,q", "app.pop_screen", "learn.back")]

    def __init__(self, lesson: Lesson, lang: str = "en", **context: Any) -> None:
        super().__init__()
        localize(self, lang)
        self.lesson = lesson
        self.lang = lang
        self.context = context

    def t(self, key: str) -> str:
        return text(key, self.lang)

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with VerticalScroll(id="learn-body"):
            yield Static(self.t(self.lesson.idea_key), id="learn-idea", markup=False)
            yield from self.body()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(StatusLine).set(what=f"{self.lesson.number} · {self.t(self.lesson.title_key)}")
        self.refresh_numbers()

    def body(self) -> ComposeResult:
        """The screen's own widgets."""
        yield from ()

    def refresh_numbers(self) -> None:
        """Show the numbers for the current controls."""
