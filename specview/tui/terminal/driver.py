"""The terminal driver specview runs on: Textual's own, ending the app when the terminal goes away
(tui/terminal/hangup.py), sending the terminal only what changed (tui/terminal/screen_diff.py), and ending at once
on a Ctrl-C while a quit waits for its runs to stop (tui/terminal/force_quit.py)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from typing import Any

from textual.driver import Driver

from specview.compat.textual_compat import driver_output, set_driver_output
from specview.tui.terminal.force_quit import force_on_interrupt
from specview.tui.terminal.hangup import HANGUP_EXIT, Hangup
from specview.tui.terminal.screen_diff import ScreenDiff

OFF_SWITCH = "SPECVIEW_SCREEN_DIFF"  # "0": write what Textual writes (for a terminal that disagrees)


def terminal_driver(driver: type[Driver]) -> type[Driver]:
    """`driver`, when it drives a real terminal (not a browser or a test): watched for a hangup,
    and writing through a ScreenDiff unless that is switched off."""
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # Windows: its own driver, left as it is
        return driver
    if not issubclass(driver, LinuxDriver):
        return driver
    diff = os.environ.get(OFF_SWITCH) != "0"

    def __init__(self: Any, app: Any, *args: Any, **kwargs: Any) -> None:
        driver.__init__(self, app, *args, **kwargs)
        self.specview_app = app  # (Textual's driver keeps its app private)
        output = driver_output(self)
        self._hangup = Hangup((self.fileno, (output or sys.__stderr__ or sys.stderr).fileno()))
        if output is not None:  # (else a hangup still ends the app, and writes are Textual's to fail)
            set_driver_output(self, self._hangup.output(output))  # before the writer thread is made from it
        self._screen_diff = ScreenDiff() if diff else None
        self._diff_size = None  # the size the screen diff knows

    def start_application_mode(self: Any) -> None:
        loop = asyncio.get_running_loop()
        app = self.specview_app
        # the way SIGHUP stops the app (tui/app.py), from the watching thread
        self._hangup.start(lambda: loop.call_soon_threadsafe(app.exit, None, HANGUP_EXIT))
        driver.start_application_mode(self)  # type: ignore[no-untyped-call]  # Textual's is untyped

    def stop_application_mode(self: Any) -> None:
        self._hangup.stop()
        driver.stop_application_mode(self)
        if not self.specview_app.is_running:  # quitting (not suspended): the runs stop now, and Ctrl-C forces it
            force_on_interrupt()

    def write(self: Any, data: str) -> None:
        if self._screen_diff is not None:
            size = shutil.get_terminal_size()  # how Textual's Linux driver reads it
            if size != self._diff_size:  # a terminal may clear or reflow on resize: send everything again
                self._diff_size = size
                self._screen_diff.reset(rows=size.lines or 25)
            data = self._screen_diff.compact(data)
        driver.write(self, data)

    methods = {"__init__": __init__, "start_application_mode": start_application_mode,
               "stop_application_mode": stop_application_mode, "write": write}
    return type(f"Specview{driver.__name__}", (driver,), methods)
