"""Starting the terminal UI, the same way for every command that has one (live, compare, replay).

The config file's pace, language, theme and keymap fill what the command line leaves out; a bad
`--theme` is refused before any backend is built (a model may take seconds to load), and a
bad theme in the config becomes a notification, not an error.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from specview.boundary.text import shown
from specview.cli.errors import CliError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from specview.catalog.config import Config
    from specview.tui.app import BaseApp
    from specview.tui.pump import Throttle


@dataclass(frozen=True, slots=True)
class UiSettings:
    config: Config
    speed: float  # the simulator's pace (command line, else config, else 1)
    lang: str
    theme: str | None
    problems: tuple[str, ...]
    keymap: dict[str, str]
    fps: float | None = None  # redraws per second (command line, else config); None: the screen's default


def ui_settings(args: argparse.Namespace) -> UiSettings:
    """What the command line and the config file say about the UI; CliError for a bad --theme."""
    from specview.cli.config_report import gather
    from specview.kernel.langs import DEFAULT_LANG
    from specview.kernel.runspec import default_of

    found = gather()  # every problem of the config, its keymap, the user presets and the config's theme
    config, problems, keymap = found.config, found.problems, found.keymap
    known = theme_names()
    theme: str | None = getattr(args, "theme", None)
    if theme is not None and theme not in known:
        raise CliError(f"unknown theme {shown(theme)}; known themes: {', '.join(sorted(known))}")
    if theme is None and config.theme in known:  # a theme it does not know is among the problems
        theme = config.theme
    speed = args.speed if args.speed is not None else config.speed if config.speed is not None else default_of("speed")
    lang = args.lang or config.lang or DEFAULT_LANG
    fps = getattr(args, "fps", None)
    return UiSettings(config, speed, lang, theme, problems, keymap, fps if fps is not None else config.fps)


def throttle_of(ui: UiSettings) -> Throttle | None:
    """The redraw rates for `--fps` / the config's fps (None: the screens' defaults)."""
    from specview.tui.pump import Throttle

    return None if ui.fps is None else Throttle.at(ui.fps)


def theme_names() -> set[str]:
    """Every theme the app can show: Textual's own and the shipped ones."""
    from textual.theme import BUILTIN_THEMES

    from specview.themes.loader import shipped_themes

    return set(BUILTIN_THEMES) | {theme.name for theme in shipped_themes()}


def run_app(app: BaseApp, notices: Iterable[str | None] = ()) -> int:
    """Run the UI to the end; its exit code. `notices` (None: nothing to say) are shown once at start."""
    from specview.cli.quick_exit import arm

    app.notices = tuple(notice for notice in notices if notice)
    app.run()
    arm()
    return app.return_code or 0
