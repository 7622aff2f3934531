"""`specview compare A B [C D]`: build every backend first (errors exit 2), then the screen."""

from __future__ import annotations

import argparse

from specview.cli.app_run import run_app, throttle_of, ui_settings
from specview.cli.argtypes import Parser, SubParsers, fps_option, speed_option
from specview.cli.errors import CliError
from specview.cli.not_a_terminal import terminal_checked
from specview.cli.runspec_args import specs_from_args, specs_key_notice
from specview.cli.waiting import waiting_on
from specview.texts.catalog import Phrase


def run_compare(args: argparse.Namespace) -> int:
    from specview.backends.factory import make_backend

    if not 2 <= len(args.selectors) <= 4:
        raise CliError("liveerr.compare_count", got=len(args.selectors))
    ui = ui_settings(args)
    specs = specs_from_args(args, speed=ui.speed, max_rounds=None, config=ui.config)
    backends = []
    try:
        with terminal_checked(specs, Phrase("not_a_terminal.what.compare"), "specview bench SELECTOR… --json"), \
                waiting_on(specs, ui.lang):
            for spec in specs:
                backends.append(make_backend(spec))
    except BaseException:  # q or Ctrl-C while waiting on a server too
        for backend in backends:
            backend.close()
        raise
    from specview.features.live.app import SpecviewApp

    return run_app(SpecviewApp(specs[0], backends[0], theme_name=ui.theme, lang=ui.lang, compare=backends,
                               compare_specs=specs, problems=ui.problems, keymap=ui.keymap, throttle=throttle_of(ui)),
                   [specs_key_notice(specs, ui.lang)])


def register(sub: SubParsers, selectors: Parser) -> None:
    compare = sub.add_parser(
        "compare", parents=[selectors], help="cli_help.compare.help", description="cli_help.compare.description")
    compare.add_argument("selectors", nargs="+", metavar="SELECTOR", help="cli_help.compare.selectors")
    speed_option(compare, "cli_help.compare.speed")
    fps_option(compare)
    compare.set_defaults(run=run_compare)
