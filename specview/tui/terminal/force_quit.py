"""A second Ctrl-C while the app stops: the process ends at once.

Quitting (`q`, Ctrl-C, SIGTERM) gives the terminal back first and then stops every run — each
stop waits up to a few seconds for its producer — and closes recordings. Once the terminal is
back it sends Ctrl-C as SIGINT again, which asyncio would turn into a cancellation that the
shielded shutdown ignores, so the wait went on. From then on SIGINT ends the process with 130,
the code a shell gives for an interrupt. What was still stopping is not waited for: a recording
may miss its last lines.
"""

from __future__ import annotations

import contextlib
import os
import signal
from types import FrameType
from typing import NoReturn

FORCED_EXIT = 128 + signal.SIGINT


def force_on_interrupt() -> None:
    """From now on a SIGINT ends the process at once (only the main thread may set this)."""
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, _force)


def _force(_signum: int, _frame: FrameType | None) -> NoReturn:
    os._exit(FORCED_EXIT)
