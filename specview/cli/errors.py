"""CLI failures: one line on stderr, exit code 2, no traceback."""

from __future__ import annotations

import sys
from typing import NoReturn

from specview.core.errors import CliError

__all__ = ["CliError", "fail"]


def fail(message: str) -> NoReturn:
    """Print one clear line and exit 2."""
    first = " ".join(str(message).split("\n")[0].split())
    print(f"specview: error: {first}", file=sys.stderr)
    raise SystemExit(2)
