"""The terminal driver specview runs on: Textual's own, with colour sequences compacted on the way out."""

from __future__ import annotations

from typing import Any

from textual.driver import Driver

from specview.tui.sgr_compact import SgrCompactor


def compacting(driver: type[Driver]) -> type[Driver]:
    """`driver`, writing through an SgrCompactor when it drives a real terminal (not a browser or a test)."""
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # Windows: its own driver, left as it is
        return driver
    if not issubclass(driver, LinuxDriver):
        return driver

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        driver.__init__(self, *args, **kwargs)
        self._sgr_compactor = SgrCompactor()

    def write(self: Any, data: str) -> None:
        driver.write(self, self._sgr_compactor.compact(data))

    return type(f"Compacting{driver.__name__}", (driver,), {"__init__": __init__, "write": write})
