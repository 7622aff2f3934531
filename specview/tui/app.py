"""The Textual app: themes, app-wide keys, and the live screen as the default screen."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from specview.core.backend import Backend
from specview.core.errors import SpecviewError
from specview.core.explain.context import RunContext
from specview.core.runspec import RunSpec
from specview.themes.loader import TOKEN_DEFAULTS, shipped_themes
from specview.tui.live_screen import LiveScreen

if TYPE_CHECKING:
    from specview.learn.base import LearnScreen
    from specview.learn.registry import Lesson

DEFAULT_THEME = "specview"


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
        self.theme = theme_name or DEFAULT_THEME

    def on_mount(self) -> None:
        for problem in self.problems:
            self.notify(problem, title="config", severity="error", timeout=20)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(TOKEN_DEFAULTS)

    def action_learn(self) -> None:
        from specview.learn.index_screen import LearnIndex

        if not isinstance(self.screen, LearnIndex):
            self.push_screen(LearnIndex(self.lang), self.open_lesson)

    def open_lesson(self, lesson: Lesson | None, run: RunContext | None = None) -> None:
        if lesson is not None:
            self.push_screen(lesson.make_screen(self.lang, run or self.learn_context()))

    def learn_context(self) -> RunContext | None:
        """What a running decoder tells the Learn screens (nothing without a run)."""
        return None

    def on_learn_screen_run_preset(self, message: LearnScreen.RunPreset) -> None:
        """A Learn screen asked to run a preset live, or to show how to run it on an engine."""
        if message.real:
            from specview.tui.real_run_screen import show_real_run

            show_real_run(self.screen, message.preset_id)
            return
        self.run_preset(message.preset_id)

    def run_preset(self, preset_id: str) -> None:
        """Watch a preset live: a simulator run on a new live screen over the Learn screens."""
        from specview.backends.factory import make_backend

        spec = RunSpec(preset=preset_id, lang=self.lang)
        try:
            backend = make_backend(spec)
        except SpecviewError as exc:
            self.notify(str(exc), severity="error")
            return
        self.push_screen(LiveScreen(spec, backend, self.lang))

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
                 compare: list[Backend] | None = None, problems: tuple[str, ...] = ()) -> None:
        super().__init__(theme_name, lang, problems)
        self.compare = compare
        self.spec = spec
        self.record = record
        self.initial_backend = backend

    def get_default_screen(self) -> Screen[None]:
        if self.compare:
            from specview.tui.compare_screen import CompareScreen

            return CompareScreen(self.compare, self.lang)
        return LiveScreen(self.spec, self.initial_backend, self.lang, record=self.record)

    def run_preset(self, preset_id: str) -> None:
        """Switch the live run to `preset_id` and show it (the Learn screens close)."""
        if isinstance(self.screen_stack[0], LiveScreen):
            while len(self.screen_stack) > 1:
                self.pop_screen()
            self.live.switch_preset(preset_id)
        else:
            super().run_preset(preset_id)

    def learn_context(self) -> RunContext | None:
        """The live run's measured numbers and model, for the Learn screens."""
        if not isinstance(self.screen_stack[0], LiveScreen):
            return None
        return self.live.learn_context()

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
        yield SystemCommand("Help", "Keys, marks and definitions", self.action_help)
        yield SystemCommand("Learn this token", "Open the selected token in Learn 6 (key i)", live.action_learn_token)
        yield SystemCommand("Learn: how much faster is this run?", "Learn 10 with this run's α, γ, c (key t)",
                            live.action_learn_speedup)
