"""Waiting on a condition in a test that runs no event loop (an app test waits with app_helpers.wait_until)."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(predicate: Callable[[], bool], timeout: float = 20.0, what: str = "the condition") -> None:
    """Poll `predicate` until it holds; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.05)
