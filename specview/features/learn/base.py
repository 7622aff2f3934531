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
    # q quits (the app's, a priority binding). pgdn/pgup (and ]/[) move to the next/previous screen, a
    # priority over the body's own page scroll (VerticalScroll's pgdn/pgup, which a focused slider passes
    # on), so they move on every screen whatever has focus; shift+pgdn/shift+pgup, home/end and the wheel
    # still scroll a long screen. They stop at the first and the last screen, where pgup/pgdn scroll the body.
    BINDINGS = [
        bind("escape", "app.pop_screen", "learn.back"),
        bind("pageup,left_square_bracket", "previous_lesson", "learn.previous", priority=True),
        bind("pagedown,right_square_bracket", "next_lesson", "learn.next", priority=True),
        bind("shift+pagedown", "page(1)", "learn.page_down", show=False),
        bind("shift+pageup", "page(-1)", "learn.page_up", show=False),
    ]
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

    def neighbour(self, step: int) -> Lesson | None:
        """The screen `step` away in the registry's order (-1 the previous, 1 the next), None past either end."""
        from specview.features.learn.registry import lessons

        order = [item.slug for item in lessons()]
        if self.lesson.slug not in order:
            return None
        at = order.index(self.lesson.slug) + step
        return lessons()[at] if 0 <= at < len(order) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("next_lesson", "previous_lesson"):  # disabled (None) at the last / the first screen
            return True if self.neighbour(1 if action == "next_lesson" else -1) is not None else None
        return True

    def action_next_lesson(self) -> None:
        self._move(1)

    def action_previous_lesson(self) -> None:
        self._move(-1)

    def action_page(self, step: int) -> None:
        """Scroll the body a page (down for 1, up for -1): what pgdn/pgup do in a view that is not a Learn screen."""
        body = self.query_one("#learn-body", VerticalScroll)
        if step > 0:
            body.scroll_page_down()
        else:
            body.scroll_page_up()

    def _move(self, step: int) -> None:
        """Put the neighbouring screen in this one's place (esc still goes back to what was under it)."""
        target = self.neighbour(step)
        if target is not None:
            self.app.switch_screen(target.make_screen(self.lang, self.run))

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
