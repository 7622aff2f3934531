"""Tracebacks of bugs go to a log file, masked, never to the terminal.

A SpecviewError is an answer to bad input and is shown in one line. Anything else that
escapes is a bug: the CLI (and the UI, for an exception inside the app) shows one line that
names it and this file, and the traceback goes here with every registered secret masked
(tracebacks print values, and a key could be one of them).
"""

from __future__ import annotations

import sys
import traceback
from datetime import UTC, datetime
from pathlib import Path

from specview.core.secrets import mask


def crash_log_path() -> Path:
    """crash.log in the user log folder (~/.local/state/specview/log/ on Linux)."""
    import platformdirs

    return platformdirs.user_log_path("specview") / "crash.log"


def write_crash_log(exc: BaseException) -> str:
    """Append `exc`'s traceback (masked) to the crash log; where it went, or why it could not."""
    path = crash_log_path()
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    text = "".join(traceback.format_exception(exc))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8", errors="backslashreplace") as log:
            log.write(mask(f"--- {stamp} specview {' '.join(sys.argv[1:])}\n{text}\n"))
    except OSError as err:
        return f"the traceback could not be written to {path} ({err.strerror or err})"
    return f"the traceback is in {path}"


def internal_error_line(exc: BaseException, where: str) -> str:
    """The one line a bug gets: what it was, where its traceback is."""
    from specview.core.text import sanitize

    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    shown = sanitize(" ".join(what.split()), 300, one_line=True)
    return f"specview: internal error ({shown}); {where}; please report it"
