"""`specview learn [N] [--json]`: the explainer, or one screen's computed numbers."""

from __future__ import annotations

import argparse

from specview.cli.argtypes import Parser, SubParsers, int_in, lang_option


def register(sub: SubParsers, selectors: Parser) -> None:
    learn = sub.add_parser("learn", help="how speculative decoding works, screen by screen",
                           description="Without N: the index of Learn screens. With --json: the numbers "
                           "screen N shows at its default controls.")
    learn.add_argument("number", nargs="?", type=int_in(1, 99, "N"), metavar="N", help="open screen N")
    learn.add_argument("--json", action="store_true", help="print screen N's numbers as JSON (no terminal)")
    lang_option(learn, default=argparse.SUPPRESS)
    learn.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from specview.cli.errors import CliError
    from specview.learn.registry import lesson

    chosen = lesson(args.number) if args.number is not None else None
    if args.json:
        if chosen is None:
            raise CliError("--json needs a screen number, e.g. specview learn 10 --json")
        from specview.core.jsonio import dumps

        print(dumps(chosen.numbers()))
        return 0
    from specview.cli.app_run import run_app, ui_settings
    from specview.tui.learn_app import LearnApp

    ui = ui_settings(args)
    return run_app(LearnApp(chosen, theme_name=ui.theme, lang=ui.lang, problems=ui.problems, keymap=ui.keymap))
