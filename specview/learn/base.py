"""What every Learn screen shares: a title, its idea, a body, numbers from core, esc to go back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from specview.core.explain.context import RunContext
from specview.texts.catalog import text
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider
from specview.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from specview.learn.registry import Lesson


class LearnScreen(Screen[None]):
    """Subclasses compose `body()`, compute `numbers()` from core for the current controls, and
    show them in `refresh_numbers()`; a moved slider refreshes."""

    CSS_PATH = "learn.tcss"
    AUTO_FOCUS = ""  # on_mount focuses the first control without scrolling the body
    BINDINGS = [Binding("escape,q", "app.pop_screen", "back", id="learn.back")]

    class RunPreset(Message):
        """Ask the app to run a preset live (`real` = show how to run it on an engine instead)."""

        def __init__(self, preset_id: str, real: bool = False) -> None:
            super().__init__()
            self.preset_id = preset_id
            self.real = real

    def __init__(self, lesson: Lesson, lang: str = "en", run: RunContext | None = None) -> None:
        super().__init__()
        self.lesson = lesson
        self.lang = lang
        self.run = run

    def t(self, key: str) -> str:
        """A catalog text by its full key."""
        return text(key, self.lang)

    def ts(self, name: str) -> str:
        """A text of this lesson: `learn.<slug>.<name>`."""
        return text(f"learn.{self.lesson.slug}.{name}", self.lang)

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with VerticalScroll(id="learn-body", can_focus=False):
            yield Prose(self.t(self.lesson.idea_key), id="learn-idea")
            yield from self.body()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(StatusLine).set(what=f"· learn {self.lesson.number} · {self.t(self.lesson.title_key)}")
        self.refresh_numbers()
        focusable = [w for w in self.query("*") if w.focusable]
        if focusable:
            focusable[0].focus(scroll_visible=False)

    def body(self) -> ComposeResult:
        """The screen's own widgets."""
        yield from ()

    def numbers(self) -> dict[str, Any]:
        """The core numbers for the current controls (what the screen shows)."""
        return self.lesson.numbers(self.lang)

    def refresh_numbers(self) -> None:
        """Show the numbers for the current controls."""

    def on_slider_changed(self, event: Slider.Changed) -> None:
        event.stop()
        self.refresh_numbers()

    def show_pairs(self, widget_id: str, pairs: list[tuple[str, str]], notes: list[str] | None = None) -> None:
        """Fill a Static with `label  value` lines (labels padded to one column), then plain notes."""
        out = Text()
        width = max((cell_len(label) for label, _ in pairs), default=0)
        for i, (label, value) in enumerate(pairs):
            if i:
                out.append("\n")
            out.append(label + " " * (width - cell_len(label) + 2), style="dim")
            out.append(value, style="bold")
        for note in notes or []:
            out.append("\n" + note, style="dim")
        self.query_one(f"#{widget_id}", Static).update(out)
