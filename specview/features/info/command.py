"""`specview info [run options] [--json]`: versions, the llama.cpp build, every path specview reads or
writes and each effective option with its origin. It reports: exit 0 whatever it finds (a config
problem is also said on stderr, as every headless command says it: cli/config_report.py)."""

from __future__ import annotations

import argparse

from specview.cli.argtypes import Parser, SubParsers, float_in, fps_option
from specview.cli.help_format import Help
from specview.kernel.runspec import default_of


def register(sub: SubParsers, selectors: Parser) -> None:
    info = sub.add_parser("info", parents=[selectors], help="cli_help.info.help",
                          description="cli_help.info.description")
    info.add_argument("--json", action="store_true", help="cli_help.info.json")
    # the live view's own options (cli/parser.py has them before a command too): no default here, so
    # one given before `info` stays
    info.add_argument("--theme", metavar="NAME", default=argparse.SUPPRESS, help="cli_help.main.theme")
    info.add_argument("--speed", type=float_in(0.0, 1000.0, "--speed"), metavar="X", default=argparse.SUPPRESS,
                      help=Help("cli_help.main.speed", default=f"{default_of('speed'):g}"))
    fps_option(info)
    info.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from specview.boundary.jsonio import dumps
    from specview.boundary.secrets import add_url_secrets
    from specview.catalog.config import load_config
    from specview.cli.runspec_args import api_key_of
    from specview.features.info.render import lines
    from specview.features.info.report import gather
    from specview.kernel.langs import DEFAULT_LANG

    add_url_secrets(getattr(args, "url", None))  # before anything could quote it
    config = load_config()
    api_key_of(args, config)  # registers every key there is as a secret: masked wherever a value repeats it
    report = gather(args, config)
    if args.json:
        print(dumps(report, indent=1))
        return 0
    print("\n".join(lines(report, getattr(args, "lang", None) or config.lang or DEFAULT_LANG)))
    return 0
