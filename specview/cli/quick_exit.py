"""Ending the process at once after the UI (or `q` before it): `q` is done when the prompt is back.

Once the app has returned (runs stopped, recordings closed, the terminal restored), Python's
own teardown — clearing some 650 modules and collecting tens of thousands of objects — still
takes 0.2 s on an idle machine and over a second on a busy one, with nothing left to do. So
after a UI ran, a program run of specview (not `main([...])` from a test) runs the exit hooks,
flushes stdout and stderr and ends with `os._exit`, unless a thread that is not a daemon is
still working (it would be waited for on a normal exit, so then the normal exit happens).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

from specview.compat.stdlib_compat import run_exit_handlers

_armed = False


class Quit(KeyboardInterrupt):
    """`q` while waiting on a server before the UI (cli/waiting.py): leave as `q` does in the UI,
    with exit code 0 and at once."""


def arm() -> None:
    """A Textual app ran to its end in this process, or a key ended the wait before it."""
    global _armed
    _armed = True


def end_after_ui(code: int) -> None:
    """End the process now with `code` if armed and nothing else still works; else return."""
    main = threading.main_thread()
    if not _armed or any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not main):
        return
    run_exit_handlers()  # what a normal exit would run first (recordings are closed there)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
