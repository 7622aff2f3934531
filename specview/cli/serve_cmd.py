"""`specview serve [--host H] [--port N] [--public] [-- COMMAND ...]`: the app in a web browser.

textual-serve (the `serve` extra) runs one specview per browser tab and relays its terminal.
Whoever can open the page drives that specview, so only a loopback address is served unless
`--public` says otherwise (and then a warning says so). What follows `--` is the specview
command line to serve (`-- compare qwen3.6-mtp glm-5.2-mtp`); it is checked here, once,
before anything listens.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import sys

from specview.cli.argtypes import Parser, SubParsers, int_in
from specview.cli.errors import CliError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def served_command(app_args: list[str]) -> str:
    """The shell command textual-serve starts per browser tab: this Python's specview with `app_args`."""
    from specview.cli.parser import build_parser

    if app_args[:1] == ["--"]:
        app_args = app_args[1:]
    if app_args[:1] == ["serve"]:
        raise CliError("specview serve cannot serve itself; name the command to serve after --")
    build_parser().parse_args(app_args)  # a bad served command line fails now, with one line and exit 2
    return shlex.join([sys.executable, "-m", "specview", *app_args])


def run(args: argparse.Namespace) -> int:
    host: str = args.host
    if not is_loopback(host) and not args.public:
        raise CliError(f"refusing to serve on {host}: anyone who can reach it could drive the app; "
                       "add --public if that is what you want")
    command = served_command(list(args.app))
    try:
        from textual_serve.server import Server
    except ImportError:
        raise CliError("specview serve needs textual-serve: pip install 'specview[serve]'") from None
    if not is_loopback(host):
        print(f"specview: warning: serving on {host}:{args.port}; anyone who can reach this address can open "
              "the page and drive specview", file=sys.stderr, flush=True)
    Server(command, host=host, port=args.port, title="specview", public_url=args.public_url).serve()
    return 0


def register(sub: SubParsers, selectors: Parser) -> None:
    serve = sub.add_parser(
        "serve", help="run specview in a web browser (needs the serve extra)",
        description="Serve specview to a web browser through textual-serve. Everything after -- is the "
                    "specview command line to serve, e.g. `specview serve -- compare qwen3.6-mtp glm-5.2-mtp`.")
    serve.add_argument("--host", default=DEFAULT_HOST,
                       help=f"address to listen on (default: {DEFAULT_HOST}; others need --public)")
    serve.add_argument("--port", type=int_in(1, 65535, "--port"), default=DEFAULT_PORT, metavar="N",
                       help=f"port to listen on (default: {DEFAULT_PORT})")
    serve.add_argument("--public", action="store_true",
                       help="allow a non-loopback address: anyone who can reach it can drive the app")
    serve.add_argument("--public-url", metavar="URL",
                       help="the address browsers use to reach the server, when it differs from --host/--port")
    serve.add_argument("app", nargs=argparse.REMAINDER, metavar="-- COMMAND",
                       help="the specview command line to serve (default: the live view)")
    serve.set_defaults(run=run)
