"""The Textual app: themes, app-wide keys, and the live screen as the default screen."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from specview.core.backend import Backend
from specview.core.crash_log import internal_error_line, write_crash_log
from specview.core.runspec import RunSpec
from specview.texts.catalog import text
from specview.themes.loader import TOKEN_DEFAULTS, shipped_themes
from specview.tui.live_screen import LiveScreen
from specview.tui.notify import notify_safe

if TYPE_CHECKING:
    from specview.learn.registry import Lesson

DEFAULT_THEME = "specview"
# Stopped by a signal: leave the way `q` does (runs stopped, recordings closed, terminal
# restored), with the shell's exit code for that signal (128 + its number).
STOP_SIGNALS = {signal.SIGTERM: 143, signal.SIGHUP: 129}


class BaseApp(App[None]):
    """What every specview app shares: look, themes, help, the Learn index, config problems."""

    CSS_PATH = str(Path(__file__).with_name("specview.tcss"))  # also for subclasses defined elsewhere
    TITLE = "specview"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("q", "quit", "quit", priority=True, id="app.quit", tooltip="Quit specview"),
        Binding("f1,question_mark", "help", "help", id="app.help", tooltip="Keys, marks and definitions"),
        Binding("l", "learn", "learn", id="app.learn", tooltip="How speculative decoding works"),
        Binding("ctrl+z", "suspend_process", "suspend", show=False, id="app.suspend",
                tooltip="Suspend to the shell (fg resumes)"),
    ]

    def __init__(self, theme_name: str | None = None, lang: str = "en", problems: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.problems = problems
        self.lang = lang
        self.crash_line = ""
        for theme in shipped_themes():
            self.register_theme(theme)
        self.theme = theme_name or DEFAULT_THEME

    def on_mount(self) -> None:
        self._catch_stop_signals()
        # Back from Ctrl-Z (fg): the shell drew over the terminal, so draw everything again
        # (by default only what changed since is redrawn, and the status line may not have).
        self.app_resume_signal.subscribe(self, lambda _app: self.refresh(layout=True))
        for problem in self.problems:
            notify_safe(self, problem, title=text("error.config_title", self.lang), severity="error", timeout=20)

    def _catch_stop_signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig, code in STOP_SIGNALS.items():
            # not in the main thread (some test runners), or no such signal here: keep the default
            with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
                loop.add_signal_handler(sig, self.exit, None, code)

    def _fatal_error(self) -> None:
        """A bug inside the app: one line on exit and the (masked) traceback in the crash log.

        Textual's own handler prints a traceback with local variables, which could show a
        key; this replaces only that report (the exit and the test hooks stay Textual's).
        """
        error = sys.exc_info()[1] or self._exception
        if error is None:
            super()._fatal_error()
            return
        line = internal_error_line(error, write_crash_log(error))
        self.crash_line = self.crash_line or line  # the first: later ones are usually its echoes
        self._close_messages_no_wait()

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """Run the app; after a bug, print its one line (Rich would wrap it) once the terminal is back."""
        result = super().run(*args, **kwargs)
        if self.crash_line:
            print(self.crash_line, file=sys.stderr)
        return result

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
