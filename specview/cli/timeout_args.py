"""`--connect-timeout`, `--request-timeout`, `--stream-timeout` (and `--read-timeout`, with the
remote options): the command line first, then the config file's keys of the same names, then
the defaults (backends/remote/timeouts.py says what each one bounds)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from specview.backends.remote.timeouts import PROBE_S, Timeouts
from specview.cli.argtypes import float_in
from specview.cli.help_format import Help
from specview.compat.stdlib_compat import ArgumentGroup

if TYPE_CHECKING:
    from specview.catalog.config import Config

MAX_S = 86_400.0
_DEFAULT = Timeouts()


def timeout_options(group: ArgumentGroup | argparse.ArgumentParser, *, streams: bool = True,
                    default: object = None) -> None:
    """Add the options; `streams`: the command streams completions (--stream-timeout)."""
    group.add_argument("--connect-timeout", type=float_in(0.1, MAX_S, "--connect-timeout"), metavar="S",
                       default=default, help=Help("cli_help.timeout.connect", default=f"{_DEFAULT.connect:g}"))
    group.add_argument("--request-timeout", type=float_in(0.1, MAX_S, "--request-timeout"), metavar="S",
                       default=default, help=Help("cli_help.timeout.request", probe=f"{PROBE_S:g}",
                                                  default=f"{_DEFAULT.request:g}"))
    if streams:
        group.add_argument("--stream-timeout", type=float_in(1.0, MAX_S, "--stream-timeout"), metavar="S",
                           default=default, help=Help("cli_help.timeout.stream", default=f"{_DEFAULT.stream:g}"))


def chosen(args: argparse.Namespace, config: Config, name: str) -> float | None:
    """`--NAME` if given, else the config's `NAME` (None: the default applies)."""
    given = getattr(args, name, None)
    value = given if given is not None else getattr(config, name)
    return float(value) if value is not None else None


def timeouts_of(args: argparse.Namespace, config: Config) -> Timeouts:
    """Every timeout the command line and the config set, the defaults for the rest."""
    return Timeouts.given(connect=chosen(args, config, "connect_timeout"),
                          request=chosen(args, config, "request_timeout"),
                          read=chosen(args, config, "read_timeout"), stream=chosen(args, config, "stream_timeout"))
