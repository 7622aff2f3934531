"""The terminal driver specview runs on: Textual's own, sending the terminal only what changed."""

from __future__ import annotations

import os
from typing import Any

from textual.driver import Driver

from specview.tui.screen_diff import ScreenDiff

OFF_SWITCH = "SPECVIEW_SCREEN_DIFF"  # "0": write what Textual writes (for a terminal that disagrees)


def diffing(driver: type[Driver]) -> type[Driver]:
    """`driver`, writing through a ScreenDiff when it drives a real terminal (not a browser or a test)."""
    if os.environ.get(OFF_SWITCH) == "0":
        return driver
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # Windows: its own driver, left as it is
        return driver
    if not issubclass(driver, LinuxDriver):
        return driver

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        driver.__init__(self, *args, **kwargs)
        self._screen_diff = ScreenDiff()
        self._diff_size = None  # the size the screen diff knows

    def write(self: Any, data: str) -> None:
        size = self._get_terminal_size()
        if size != self._diff_size:  # a terminal may clear or reflow on resize: send everything again
            self._diff_size = size
            self._screen_diff.reset(rows=size[1])
        driver.write(self, self._screen_diff.compact(data))

    return type(f"Diffing{driver.__name__}", (driver,), {"__init__": __init__, "write": write})
