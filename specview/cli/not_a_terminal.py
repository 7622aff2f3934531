"""A command that draws a screen, run where standard output is no terminal: refused, with one line.

In a pipe, a file, cron or CI a Textual screen has nowhere to go: it would write its escape
sequences into the output and run until killed. Each command that opens a screen refuses
(`need_terminal`: one line naming the command that prints instead, exit 2) once its input is
checked, so a bad option or file is still named, and before a model is loaded or a server asked.
textual-serve runs the app with pipes on purpose: its web driver, named in TEXTUAL_DRIVER, speaks
its own protocol there, so a driver chosen that way is not refused.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from specview.kernel.backend import BackendKind
from specview.kernel.errors import CliError
from specview.texts.catalog import Phrase

if TYPE_CHECKING:
    from specview.kernel.runspec import RunSpec

# built at once from the command line or a file, no model and no server: their errors are the input's
BUILT_AT_ONCE = frozenset({BackendKind.SIM, BackendKind.REPLAY})


def output_is_terminal() -> bool:
    """Whether a screen can be drawn: standard output is a terminal, or Textual draws through a
    driver named in TEXTUAL_DRIVER (textual-serve's, over its pipe)."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return True
    out = sys.stdout
    return out is not None and out.isatty()


def need_terminal(what: Phrase, instead: str) -> None:
    """Refuse (CliError, exit 2) unless `output_is_terminal()`: `what` names the screen, `instead`
    is the command line that gives output a pipe can take."""
    if not output_is_terminal():
        raise CliError("not_a_terminal.refused", what=what, instead=instead)


@contextmanager
def terminal_checked(specs: Sequence[RunSpec], what: Phrase, instead: str) -> Iterator[None]:
    """Around building the backends of `specs` for a screen: `need_terminal` before the block when
    one of them loads a model or asks a server, else after it, so that the simulator's and a
    recording's own errors (an unknown preset, a damaged file) are said first."""
    early = any(spec.kind not in BUILT_AT_ONCE for spec in specs)
    if early:
        for spec in specs:
            if spec.kind == BackendKind.LLAMA:  # a missing package is said first: no run could start
                from specview.backends.local.engine_process import check_installed

                check_installed(spec)
        need_terminal(what, instead)
    yield
    if not early:
        need_terminal(what, instead)
