"""The Textual app: themes, app-wide keys, and the live screen as the default screen."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.driver import Driver
from textual.filter import LineFilter
from textual.screen import Screen

from specview.core.backend import Backend
from specview.core.runspec import RunSpec
from specview.themes.loader import TOKEN_DEFAULTS, shipped_themes
from specview.tui.live_screen import LiveScreen
from specview.tui.merge_runs import MergeRuns
from specview.tui.terminal_driver import compacting

if TYPE_CHECKING:
    from specview.learn.registry import Lesson

DEFAULT_THEME = "specview"
MERGE_RUNS = MergeRuns()
# Where the terminal has only 16 colours, its own palette reads better than our colours mapped
# onto it (the nearest of 16 can swap hues: a dimmed red became yellow, orange became red).
SIXTEEN_COLOUR_THEME = "ansi"


def default_theme(color_system: str | None) -> str:
    """The theme when none was chosen, for the terminal's colour system (Rich's name for it)."""
    return SIXTEEN_COLOUR_THEME if color_system in ("standard", "windows") else DEFAULT_THEME


class BaseApp(App[None]):
    """What every specview app shares: look, themes, help, the Learn index, config problems."""

    CSS_PATH = "specview.tcss"
    TITLE = "specview"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("q", "quit", "quit", priority=True, id="app.quit", tooltip="Quit specview"),
        Binding("f1,question_mark", "help", "help", id="app.help", tooltip="Keys, marks and definitions"),
        Binding("l", "learn", "learn", id="app.learn", tooltip="How speculative decoding works"),
    ]

    def __init__(self, theme_name: str | None = None, lang: str = "en", problems: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.problems = problems
        self.lang = lang
        for theme in shipped_themes():
            self.register_theme(theme)
        self.theme_chosen = theme_name is not None
        self.theme = theme_name or DEFAULT_THEME

    def on_mount(self) -> None:
        if not self.theme_chosen and not self.is_headless:
            # only a real terminal's colours count (tests and browsers have their own)
            self.theme = default_theme(self.console.color_system)
        for problem in self.problems:
            self.notify(problem, title="config", severity="error", timeout=20)

    def get_driver_class(self) -> type[Driver]:
        # colour sequences say only what changed: most of a frame's bytes on a slow link
        return compacting(super().get_driver_class())

    def get_line_filters(self) -> Sequence[LineFilter]:
        # after Textual's own (NO_COLOR, ANSI): merge equal-style runs so each is one SGR sequence
        return [*super().get_line_filters(), MERGE_RUNS]

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(TOKEN_DEFAULTS)

    def action_learn(self) -> None:
        from specview.learn.index_screen import LearnIndex

        if not isinstance(self.screen, LearnIndex):
            self.push_screen(LearnIndex(self.lang), self.open_lesson)

    def open_lesson(self, lesson: Lesson | None) -> None:
        if lesson is not None:
            self.push_screen(lesson.make_screen(self.lang))

    def action_help(self) -> None:
        from specview.tui.help_screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.lang))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        from specview.learn.registry import LESSONS
        from specview.texts.catalog import text

        for lesson in LESSONS:
            title = f"Learn {lesson.number}: {text(lesson.title_key, self.lang)}"
            yield SystemCommand(title, text(lesson.idea_key, self.lang), partial(self.open_lesson, lesson))


class SpecviewApp(BaseApp):
    """The live view (or compare) of runs."""

    def __init__(self, spec: RunSpec, backend: Backend, theme_name: str | None = None,
                 lang: str = "en", record: str | None = None,
                 compare: list[Backend] | None = None, problems: tuple[str, ...] = (),
                 export_dir: str | None = None, fps: float | None = None) -> None:
        super().__init__(theme_name, lang, problems)
        self.fps = fps
        self.compare = compare
        self.spec = spec
        self.record = record
        self.export_dir = export_dir
        self.initial_backend = backend

    def get_default_screen(self) -> Screen[None]:
        if self.compare:
            from specview.tui.compare_screen import CompareScreen

            return CompareScreen(self.compare, self.lang, fps=self.fps)
        return LiveScreen(self.spec, self.initial_backend, self.lang, record=self.record, export_dir=self.export_dir,
                          fps=self.fps)

    @property
    def live(self) -> LiveScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, LiveScreen)
        return screen

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if not isinstance(self.screen_stack[0], LiveScreen):
            return
        live = self.live
        yield SystemCommand("Pause / resume", "Pause or resume the run", live.action_toggle_pause)
        yield SystemCommand("Step one round", "Run one round while paused", live.action_step)
        yield SystemCommand("Restart", "Start again with the same seed", live.action_restart)
        yield SystemCommand("Choose preset", "Switch the simulator preset", live.action_choose_preset)
        yield SystemCommand("Copy", "Copy the visible text or the selected token", live.action_copy)
        yield SystemCommand("Export", "Save the run's recording and a Markdown report", live.action_export)
        yield SystemCommand("Help", "Keys, marks and definitions", self.action_help)
