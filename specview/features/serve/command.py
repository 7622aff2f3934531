"""`specview serve [--host H] [--port N] [--public] [--max-sessions N] [-- COMMAND ...]`: the app in a browser.

textual-serve (the `serve` extra) runs one specview per browser tab and relays its terminal.
Whoever can open the page drives that specview, so only the URL printed at start (it carries a
random token) opens it, only from pages of this server, at most `--max-sessions` at a time
(specview/features/serve/); only a loopback address is served unless `--public` says otherwise (and
then a warning says so). What follows `--` is the specview command line to serve
(`-- compare qwen3.6-mtp glm-5.2-mtp`); it is checked here, once, before anything listens.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from specview.catalog.config import DEFAULT_SERVE_SESSIONS, MAX_SERVE_SESSIONS, load_config
from specview.cli.argtypes import Parser, SubParsers, int_in
from specview.cli.errors import CliError, warn
from specview.cli.help_format import Help

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def served_command(app_args: list[str]) -> str:
    """The shell command textual-serve starts per browser tab: this Python's specview with `app_args`."""
    from specview.cli.parser import build_parser

    if app_args[:1] == ["--"]:
        app_args = app_args[1:]
    if app_args[:1] == ["serve"]:
        raise CliError("serveerr.itself")
    build_parser().parse_args(app_args)  # a bad served command line fails now, with one line and exit 2
    return shlex.join([sys.executable, "-m", "specview", *app_args])


def run(args: argparse.Namespace) -> int:
    from specview.features.serve.access import Access, Address, is_loopback, url_host

    host: str = args.host
    if not is_loopback(host) and not args.public:
        raise CliError("serveerr.not_public", host=host)
    access = Access.serving(host, args.port, args.public_url, max_sessions(args.max_sessions))
    command = served_command(list(args.app))
    try:
        from specview.features.serve.server import GuardedServer
    except ImportError:
        raise CliError("serveerr.needs_package") from None
    if not is_loopback(host):
        warn(f"serving on {host}:{args.port}; anyone who can reach this address and has the URL printed below "
             "can open the page and drive specview")
    public_url = args.public_url or Address("http", url_host(host), args.port).origin
    GuardedServer(command, host=host, port=args.port, public_url=public_url, access=access).serve()
    return 0


def max_sessions(flag: int | None) -> int:
    """--max-sessions, else the config's serve_max_sessions, else the default."""
    if flag is not None:
        return flag
    # a bad value is reported by each served specview, with the config's other problems
    return load_config().serve_max_sessions or DEFAULT_SERVE_SESSIONS


def register(sub: SubParsers, selectors: Parser) -> None:
    serve = sub.add_parser(
        "serve", help="cli_help.serve.help", description="cli_help.serve.description")
    serve.add_argument("--host", default=DEFAULT_HOST,
                       help=Help("cli_help.serve.host", default=DEFAULT_HOST))
    serve.add_argument("--port", type=int_in(1, 65535, "--port"), default=DEFAULT_PORT, metavar="N",
                       help=Help("cli_help.serve.port", default=DEFAULT_PORT))
    serve.add_argument("--public", action="store_true",
                       help="cli_help.serve.public")
    serve.add_argument("--public-url", metavar="URL",
                       help="cli_help.serve.public_url")
    serve.add_argument("--max-sessions", type=int_in(1, MAX_SERVE_SESSIONS, "--max-sessions"), metavar="N",
                       help=Help("cli_help.serve.max_sessions", default=DEFAULT_SERVE_SESSIONS))
    serve.add_argument("app", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                       help="cli_help.serve.app")
    serve.set_defaults(run=run)
