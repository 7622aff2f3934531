"""CLI failures: one line on stderr (exit code 2 for bad input, 1 for a bug), never a traceback.

Every line passes `sanitize`: a message that quotes a server, a file or a config is shown
with its secrets masked and its control characters visible, whatever it quotes. A bug's
traceback goes to a log file, masked too, and the line says where.
"""

from __future__ import annotations

import sys
from typing import NoReturn

from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.crash_log import internal_error_line, write_crash_log
from specview.boundary.text import sanitize
from specview.kernel.errors import CliError

__all__ = ["CliError", "fail", "internal_error", "warn"]


def _line(message: str) -> str:
    return sanitize(" ".join(str(message).split()), MAX_SHOWN, one_line=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one clear line and exit `code` (2: bad input; 3: the local engine died)."""
    print(f"specview: error: {_line(message)}", file=sys.stderr)
    raise SystemExit(code)


def warn(message: str) -> None:
    """Print one line about something skipped; the command goes on."""
    print(f"specview: warning: {_line(message)}", file=sys.stderr)


def internal_error(exc: BaseException) -> int:
    """A bug escaped: one line naming it and the log, the traceback in the log; exit code 1."""
    print(internal_error_line(exc, write_crash_log(exc)), file=sys.stderr)
    return 1
