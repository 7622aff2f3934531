"""The shell every specview app shares: themes, app-wide keys, help, the Learn index."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand
from textual.driver import Driver
from textual.filter import LineFilter
from textual.screen import Screen

from specview.boundary.crash_log import internal_error_line, write_crash_log
from specview.compat.textual_compat import QuietFatalErrorApp
from specview.features.learn.explain.context import RunContext
from specview.kernel.runspec import RunSpec
from specview.plugins import problems as plugin_problems
from specview.texts.catalog import Phrase, catalog, fill, text
from specview.themes import DEFAULT_THEME, SIXTEEN_COLOUR_THEME
from specview.themes.loader import TOKEN_DEFAULTS, shipped_themes
from specview.tui.notify import ERROR_SECONDS, notify_error, notify_safe, user_action
from specview.tui.pump import Throttle
from specview.tui.terminal.collector import freeze_startup, tune_collector
from specview.tui.terminal.driver import terminal_driver
from specview.tui.terminal.style_runs import MergeRuns
from specview.widgets.bindings import bind, localize

if TYPE_CHECKING:
    from specview.features.learn.base import LearnScreen
    from specview.features.learn.registry import Lesson

MERGE_RUNS = MergeRuns()


def default_theme(color_system: str | None) -> str:
    """The theme when none was chosen, for the terminal's colour system (Rich's name for it)."""
    return SIXTEEN_COLOUR_THEME if color_system in ("standard", "windows") else DEFAULT_THEME


CONFIG_CHECK = "specview config check"  # lists every config problem in full
CONFIG_SECONDS = 10

# Stopped by a signal: leave the way `q` does (runs stopped, recordings closed, terminal
# restored), with the shell's exit code for that signal (128 + its number).
STOP_SIGNALS = {signal.SIGTERM: 143, signal.SIGHUP: 129}


class BaseApp(QuietFatalErrorApp):
    """What every specview app shares: look, themes, keys, help, the Learn index, config problems."""

    CSS_PATH = str(Path(__file__).with_name("specview.tcss"))  # also for subclasses defined elsewhere
    TITLE = "specview"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        bind("q", "quit", "app.quit", priority=True),
        # Ctrl-C quits, as in btop, htop or k9s (Textual's own binding only says "press ctrl+q");
        # not a priority: with text selected, the screen's copy takes it first
        # (a second Ctrl-C while the runs stop forces the quit: tui/terminal/force_quit.py)
        bind("ctrl+c", "quit", "app.interrupt", show=False),
        bind("f1,question_mark", "help", "app.help"),
        bind("l", "learn", "app.learn"),
        bind("ctrl+z", "suspend_process", "app.suspend", show=False),
    ]

    def __init__(self, theme_name: str | None = None, lang: str = "en", problems: tuple[str, ...] = (),
                 keymap: Mapping[str, str] | None = None, throttle: Throttle | None = None) -> None:
        super().__init__()
        localize(self, lang)
        self.problems = problems
        self.notices: tuple[str, ...] = ()  # said once at start (the CLI's run_app sets them)
        self.lang = lang
        self.crash_line = ""
        self.throttle = throttle or Throttle.default()
        if keymap:
            self.set_keymap(dict(keymap))
        for theme in shipped_themes():
            self.register_theme(theme)
        self.theme_chosen = theme_name is not None
        self.theme = theme_name or DEFAULT_THEME

    def on_mount(self) -> None:
        tune_collector()  # a frame's thousands of objects: see tui/terminal/collector.py
        if not self.is_headless:  # one app a process: a test process runs hundreds, each would stay frozen
            self.call_after_refresh(freeze_startup)
        if not self.theme_chosen and not self.is_headless:
            # only a real terminal's colours count (tests and browsers have their own)
            self.theme = default_theme(self.console.color_system)
        self._catch_stop_signals()
        # Back from Ctrl-Z (fg): the shell drew over the terminal, so draw everything again
        # (by default only what changed since is redrawn, and the status line may not have).
        self.app_resume_signal.subscribe(self, lambda _app: self.refresh(layout=True))
        if self.problems:
            self.notify_config_problems()
        for notice in self.notices:
            notify_safe(self, notice, severity="warning", timeout=ERROR_SECONDS)
        self._hear_plugin_problems()
        self.started()

    def started(self) -> None:
        """What a subclass does once the app is mounted. Textual calls `on_mount` on every class of
        the MRO, so a subclass's own `on_mount` beside this one (or calling it) runs start-up twice."""

    def _hear_plugin_problems(self) -> None:
        """A plugin unit left out (specview/plugins/) is a notification while the app owns the terminal:
        those said on stderr before it started (now under the app's screen), then each one found later."""
        for problem in plugin_problems.said():
            notify_error(self, problem)

        def heard(problem: Phrase) -> None:
            if threading.current_thread() is threading.main_thread():
                notify_error(self, problem)
            else:  # a unit loaded by a worker (a backend made for a run)
                self.call_from_thread(notify_error, self, problem)

        plugin_problems.listen(heard)

    def on_unmount(self) -> None:
        plugin_problems.listen(None)  # stderr again once the app is gone

    def notify_config_problems(self) -> None:
        """One short line: how many problems, and the command that lists each in full (a bad
        `[keymap]` id alone lists some 70 ids, which as a notification covered the screen)."""
        key = "term.config_problem" if len(self.problems) == 1 else "term.config_problems"
        message = fill(key, self.lang, count=len(self.problems), command=CONFIG_CHECK)
        notify_safe(self, message, severity="warning", timeout=CONFIG_SECONDS)

    def _catch_stop_signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig, code in STOP_SIGNALS.items():
            # not in the main thread (some test runners), or no such signal here: keep the default
            with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
                loop.add_signal_handler(sig, self.exit, None, code)

    def report_fatal_error(self, error: BaseException) -> bool:
        """A bug inside the app: one line on exit and the (masked) traceback in the crash log.

        Textual's own handler prints a traceback with local variables, which could show a
        key; this replaces only that report (the exit and the test hooks stay Textual's).
        """
        line = internal_error_line(error, write_crash_log(error))
        self.crash_line = self.crash_line or line  # the first: later ones are usually its echoes
        return True

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """Run the app; after a bug, print its one line (Rich would wrap it) once the terminal is back."""
        result = super().run(*args, **kwargs)
        if self.crash_line:
            print(self.crash_line, file=sys.stderr)
        return result

    def get_driver_class(self) -> type[Driver]:
        # end when the terminal goes away; send it only the cells (and colours) that changed
        return terminal_driver(super().get_driver_class())

    def get_line_filters(self) -> Sequence[LineFilter]:
        # after Textual's own (NO_COLOR, ANSI): merge equal-style runs so each is one SGR sequence
        return [*super().get_line_filters(), MERGE_RUNS]

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(TOKEN_DEFAULTS)

    def action_learn(self) -> None:
        from specview.features.learn.index_screen import LearnIndex

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
            from specview.features.live.real_run_screen import show_real_run

            show_real_run(self.screen, message.preset_id, self.lang)
            return
        self.run_preset(message.preset_id)

    def on_learn_screen_failed(self, message: LearnScreen.Failed) -> None:
        notify_error(self, message.message, message.title)

    def run_preset(self, preset_id: str) -> None:
        """Watch a preset live: a simulator run on a new live screen over the Learn screens."""
        from specview.backends.factory import make_backend
        from specview.features.live.screen import LiveScreen

        spec = RunSpec(preset=preset_id, lang=self.lang)
        with user_action(self):
            self.push_screen(LiveScreen(spec, make_backend(spec), self.lang, throttle=self.throttle))

    def action_help(self) -> None:
        from specview.tui.help_screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.lang, self.screen))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        from specview.features.learn.registry import lessons

        t = self.lang
        for command in super().get_system_commands(screen):
            yield translated_command(command, t)
        for lesson in lessons():
            title = fill("palette.learn", t, number=lesson.number, title=text(lesson.title_key, t))
            yield SystemCommand(title, text(lesson.idea_key, t), partial(self.open_lesson, lesson))


def translated_command(command: SystemCommand, lang: str) -> SystemCommand:
    """One of Textual's palette commands ("Theme", "Quit", …) in `lang`, found by the method it
    calls (or its title, for a lambda) in the catalog's `palette.textual`; else unchanged."""
    name = getattr(command.callback, "__name__", "<lambda>")
    key = f"palette.textual.{command.title.lower() if name == '<lambda>' else name}"
    if f"{key}.title" not in catalog("en"):
        return command
    return command._replace(title=text(f"{key}.title", lang), help=text(f"{key}.help", lang))

