"""What every Learn screen shares: a title, its idea, a body, numbers from the kernel and explain/, esc to go back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from specview.boundary.text import sanitize
from specview.catalog.presets import load_presets
from specview.features.learn.explain.context import RunContext
from specview.features.learn.footer import LearnFooter
from specview.features.learn.tags import origin_word
from specview.texts.catalog import fill, text
from specview.widgets.bindings import bind, key_hint, localize
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider
from specview.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from specview.features.learn.registry import Lesson

PRESET_CHARS = 40  # of a preset id on a control or a row


class LearnScreen(Screen[None]):
    """Subclasses compose `body()`, compute `numbers()` from the kernel for the current controls, and
    show them in `refresh_numbers()`; a moved slider refreshes."""

    CSS_PATH = "learn.tcss"
    AUTO_FOCUS = ""  # on_mount focuses the first control without scrolling the body
    BINDINGS = [bind("escape", "app.pop_screen", "learn.back")]  # q quits (the app's, a priority binding)
    HELP_GLOSSARY = True  # F1 lists this screen's keys and the glossary, not the live view's marks

    class RunPreset(Message):
        """Ask the app to run a preset live (`real` = show how to run it on an engine instead)."""

        def __init__(self, preset_id: str, real: bool = False) -> None:
            super().__init__()
            self.preset_id = preset_id
            self.real = real

    class Failed(Message):
        """Something from outside failed (reading a model, measuring it): the app shows `message`."""

        def __init__(self, message: str, title: str = "") -> None:
            super().__init__()
            self.message = message
            self.title = title

    def __init__(self, lesson: Lesson, lang: str = "en", run: RunContext | None = None) -> None:
        super().__init__()
        localize(self, lang)
        self.lesson = lesson
        self.lang = lang
        self.run = run

    def t(self, key: str) -> str:
        """A catalog text by its full key."""
        return text(key, self.lang)

    def listed_presets(self) -> list[str]:
        """The presets this screen's controls list: every one (shipped, then the user's), or the fixed set the
        app was opened with (`LearnApp(presets=…)`: the snapshot tests, which a new preset must not change)."""
        known = load_presets()
        fixed = getattr(self.app, "learn_presets", None)
        return [p for p in fixed if p in known] if fixed else list(known)

    def ts(self, name: str, /, **values: object) -> str:
        """A text of this lesson: `learn.<slug>.<name>`, its fields filled from `values` (catalog.fill)."""
        return fill(f"learn.{self.lesson.slug}.{name}", self.lang, **values)

    def origin(self) -> str:
        """The gauges' word for where the run's numbers come from: passed with the run (RunContext.origin),
        so a simulated run's numbers never read as measured."""
        return origin_word(None if self.run is None else self.run.origin, self.lang)

    def no_model_text(self, said: str) -> str:
        """A screen's "needs a local model" line `said`, with what to install or pass (`--demo`) to get one."""
        from specview.features.learn.app import LearnApp
        from specview.features.learn.local_model import model_hint

        llama = self.app.llama_installed if isinstance(self.app, LearnApp) else None
        return after(said, model_hint(self.lang, self.lesson.number, llama))

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with VerticalScroll(id="learn-body", can_focus=False):
            yield Prose(self.t(self.lesson.idea_key), id="learn-idea")
            yield from self.body()
        yield LearnFooter()

    def on_mount(self) -> None:
        for widget in self.query("*"):  # the controls' own keys (slider, grid) in this language
            localize(widget, self.lang)
        title = fill("learn.status", self.lang, number=self.lesson.number, title=self.t(self.lesson.title_key))
        self.query_one(StatusLine).set(what=title,
                                       hint=key_hint(self.app, "app.help"))
        self.refresh_numbers()
        focusable = [w for w in self.query("*") if w.focusable]
        if focusable:
            focusable[0].focus(scroll_visible=False)

    def body(self) -> ComposeResult:
        """The screen's own widgets."""
        yield from ()

    def numbers(self) -> dict[str, Any]:
        """The numbers for the current controls (what the screen shows)."""
        return self.lesson.numbers(self.lang)

    def refresh_numbers(self) -> None:
        """Show the numbers for the current controls."""

    def on_slider_changed(self, event: Slider.Changed) -> None:
        event.stop()
        self.refresh_numbers()

    def show_pairs(self, widget_id: str, pairs: list[tuple[str, str]], notes: list[str] | None = None) -> None:
        """Fill a Static with `label  value` lines (labels padded to one column), then plain notes."""
        self.query_one(f"#{widget_id}", Static).update(pairs_text(pairs, notes or []))

    def failed(self, message: str, title: str = "") -> None:
        """An error from outside (a model file, llama.cpp): the app notifies it (made safe there)."""
        self.post_message(self.Failed(message, title))


def after(said: str, more: str) -> str:
    """A sentence after another: a space after an English one, none after a Chinese full stop (。)."""
    return said + more if said.endswith(FULL_WIDTH_ENDS) else f"{said} {more}"


FULL_WIDTH_ENDS = ("。", "；", "：", "！", "？", "）")


def preset_name(preset_id: str) -> str:
    """A preset's id as a control or a row shows it (a user preset's id is text from outside)."""
    return sanitize(preset_id, PRESET_CHARS, one_line=True)


def pairs_text(pairs: list[tuple[str, str]], notes: list[str]) -> Text:
    """`label  value` lines, labels padded to one column, then the notes (plain text, never markup)."""
    out = Text()
    width = max((cell_len(label) for label, _ in pairs), default=0)
    for i, (label, value) in enumerate(pairs):
        if i:
            out.append("\n")
        out.append(label + " " * (width - cell_len(label) + 2), style="dim")
        out.append(value, style="bold")
    for note in notes:
        out.append("\n" + note, style="dim")
    return out
