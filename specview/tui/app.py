"""The Textual app: themes, app-wide keys, and the live screen as the default screen."""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from specview.backends.base import Backend
from specview.backends.spec import RunSpec
from specview.themes.loader import TOKEN_DEFAULTS, shipped_themes
from specview.tui.live_screen import LiveScreen

DEFAULT_THEME = "specview"


class SpecviewApp(App[None]):
    """specview's terminal UI."""

    CSS_PATH = "specview.tcss"
    TITLE = "specview"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("q", "quit", "quit", priority=True, id="app.quit", tooltip="Quit specview"),
        Binding("f1,question_mark", "help", "help", id="app.help", tooltip="Keys, marks and definitions"),
    ]

    def __init__(self, spec: RunSpec, backend: Backend, theme_name: str | None = None,
                 lang: str = "en", record: str | None = None,
                 compare: list[Backend] | None = None, problems: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.problems = problems
        self.compare = compare
        self.spec = spec
        self.record = record
        self.initial_backend = backend
        self.lang = lang
        for theme in shipped_themes():
            self.register_theme(theme)
        self.theme = theme_name or DEFAULT_THEME

    def on_mount(self) -> None:
        for problem in self.problems:
            self.notify(problem, title="config", severity="error", timeout=20)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(TOKEN_DEFAULTS)

    def get_default_screen(self) -> Screen[None]:
        if self.compare:
            from specview.tui.compare_screen import CompareScreen

            return CompareScreen(self.compare, self.lang)
        return LiveScreen(self.spec, self.initial_backend, self.lang, record=self.record)

    @property
    def live(self) -> LiveScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, LiveScreen)
        return screen

    def action_help(self) -> None:
        from specview.tui.help_screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.lang))

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
