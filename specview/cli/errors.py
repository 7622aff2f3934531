"""CLI failures: one line on stderr, exit code 2, no traceback."""

from __future__ import annotations

import sys
from typing import NoReturn


class CliError(Exception):
    """A user error; its message is printed as `specview: error: ...`."""


def fail(message: str) -> NoReturn:
    """Print one clear line and exit 2."""
    first = " ".join(str(message).split("\n")[0].split())
    print(f"specview: error: {first}", file=sys.stderr)
    raise SystemExit(2)
