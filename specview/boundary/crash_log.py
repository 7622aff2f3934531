"""Tracebacks of bugs go to a log file, masked, never to the terminal.

A SpecviewError is an answer to bad input and is shown in one line. Anything else that
escapes is a bug: the CLI (and the UI, for an exception inside the app) shows one line that
names it and this file, and the traceback goes here with every registered secret masked
(tracebacks print values, and a key could be one of them). The log is appended to, never
through a link, and readable by the user only (boundary/safe_files.py). Its first line gives the
command line as a bug report needs it: the subcommand and the option names, but no prompt text
(a prompt-like option's value is left out) and no URL's user, password or query.
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from specview.boundary.safe_files import open_append
from specview.boundary.secrets import public_url
from specview.boundary.text import sanitize

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S*")
_HIDDEN = "<not logged>"
_ARG_LIMIT = 200  # characters of one argument kept (a path, a selector)


def crash_log_path() -> Path:
    """crash.log in the user log folder (~/.local/state/specview/log/ on Linux)."""
    import platformdirs

    return platformdirs.user_log_path("specview") / "crash.log"


def _prompt_like(option: str) -> bool:
    """An option whose value is text the user typed: --prompt (or an abbreviation argparse accepts),
    any option named for a prompt; a --…-file option's value is a path (its contents are never read)."""
    return ("--prompt".startswith(option) and len(option) >= len("--pro")) or (
        "prompt" in option and not option.endswith("-file"))


def redacted_argv(argv: Sequence[str]) -> str:
    """The command line for the log: prompt-like values left out, URLs without user info or query."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append(_HIDDEN)
            hide_next = False
            continue
        if arg.startswith("--"):
            option, eq, _ = arg.partition("=")
            if _prompt_like(option):
                out.append(f"{option}={_HIDDEN}" if eq else option)
                hide_next = not eq
                continue
        out.append(sanitize(_URL.sub(lambda m: public_url(m.group(0)) or "", arg), _ARG_LIMIT, one_line=True))
    return " ".join(out)


def write_crash_log(exc: BaseException) -> str:
    """Append `exc`'s traceback (masked) to the crash log; where it went, or why it could not."""
    path = crash_log_path()
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    text = "".join(traceback.format_exception(exc))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open_append(path) as log:
            log.write(sanitize(f"--- {stamp} specview {redacted_argv(sys.argv[1:])}\n{text}\n"))
    except OSError as err:
        return f"the traceback could not be written to {path} ({err.strerror or err})"
    return f"the traceback is in {path}"


def internal_error_line(exc: BaseException, where: str) -> str:
    """The one line a bug gets: what it was, where its traceback is."""
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    shown = sanitize(" ".join(what.split()), 300, one_line=True)
    return f"specview: internal error ({shown}); {where}; please report it"
