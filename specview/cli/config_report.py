"""Every config problem in one place, and reported by every command.

The config file, the SPECVIEW_* variables, the `[keymap]` ids, the user preset files and the config's theme
each can be wrong (what the plugin surface leaves out, method units included, it says itself:
plugins/problems.py); a bad value never stops a command (the default is used, as docs/configuration.md says), but it
is always said: a terminal UI shows it in a notification (tui/app.py),
a headless command as one `specview: warning: …` line per problem on stderr before its output,
and `specview config check` lists them all (cli/config_cmd.py).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from specview.catalog.config import Config
    from specview.texts.catalog import Phrase

# commands that never open a terminal UI: their problems go to stderr before they run (cli/__init__.py)
HEADLESS_COMMANDS = frozenset({"presets", "bench", "calc", "sweep", "diff", "serve", "info", "doctor"})

@dataclass(frozen=True, slots=True)
class ConfigProblems:
    """The config as loaded, every problem found in full, and the keymap entries that can be used."""

    config: Config
    problems: tuple[Phrase | str, ...]  # put into words where they are shown (in_language)
    keymap: dict[str, str] = field(default_factory=dict)

    def in_language(self, lang: str) -> tuple[str, ...]:
        """Every problem in `lang`."""
        return tuple(p if isinstance(p, str) else p.render(lang) for p in self.problems)


def gather(config: Config | None = None) -> ConfigProblems:
    """Load the config (unless given) and check what it names: presets, keymap ids, the theme."""
    from specview.boundary.text import shown
    from specview.catalog.config import config_path, load_config
    from specview.catalog.presets import load_presets
    from specview.plugins.problems import was_said
    from specview.texts.catalog import Phrase

    config = config or load_config()
    problems: list[Phrase | str] = list(config.problems)
    skipped: list[Phrase] = []
    load_presets(problems=skipped)  # user preset files that are skipped, and why
    # (the plugin surface says a preset whose method no unit provides, and the method units left out)
    problems += [phrase for phrase in skipped if not was_said(phrase)]
    keymap: dict[str, str] = {}
    if config.keymap:
        from specview.tui.keymap import check_keymap

        keymap, unknown = check_keymap(config.keymap, str(config_path()))
        problems += unknown
    if config.theme:
        from specview.cli.app_run import theme_names

        if config.theme not in theme_names():
            problems.append(Phrase("clierr.config_theme", theme=shown(config.theme)))
    return ConfigProblems(config, tuple(problems), keymap)


def report_config_problems(args: argparse.Namespace | None = None) -> None:
    """A headless command's config problems: one warning line each on stderr, in the language
    an error would be said in."""
    from specview.cli.error_lang import error_lang
    from specview.cli.errors import warn

    for problem in gather().in_language(error_lang(args, sys.argv[1:])):
        warn(problem)


def report_if_headless(args: argparse.Namespace) -> None:
    """Before a command runs: report now if this command line opens no terminal UI."""
    if is_headless(args):
        report_config_problems(args)


def is_headless(args: argparse.Namespace) -> bool:
    """Whether this command line prints instead of opening a UI (which shows the problems itself).
    replay, learn and watch print with some options: the rules of their own commands, read here
    so that one place decides (`config check` lists the problems itself)."""
    command = getattr(args, "command", None)
    if command in HEADLESS_COMMANDS:
        return True
    if command == "replay":
        return bool(args.json) or args.markdown is not None
    if command == "learn":
        return bool(args.json)
    if command == "watch":  # features/watch/command: a terminal, and none of the printing options
        printing = any(getattr(args, flag, False) for flag in ("json", "csv", "check", "once"))
        return printing or getattr(args, "count", None) is not None or not sys.stdout.isatty()
    return False
