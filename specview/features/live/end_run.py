"""Leaving a real run for a simulator preset: asked first, since a real run cannot be had back.

A local model's or a server's run (measured, not simulated or replayed) took a model load or a
server's time, and its rounds are gone once another run starts; a simulator or a recording can
be run again exactly. So `p` there asks before the preset list opens: the same key again or `y`
goes on, `esc` keeps the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from specview.boundary.text import sanitize
from specview.kernel.backend import BackendInfo, Origin
from specview.texts.catalog import fill
from specview.tui.confirm import ConfirmScreen
from specview.widgets.bindings import bound_keys

RUN_CHARS = 80  # of the run's label in the question


def ask_before_leaving(screen: Screen[Any], info: BackendInfo, lang: str, asking: str,
                       go_on: Callable[[], None]) -> None:
    """Call `go_on` now for a run that can be had again, else once the user says yes.
    `asking` is the id of the binding that asked: its keys, pressed again, say yes."""
    if info.origin is not Origin.MEASURED:
        go_on()
        return
    question = fill("term.end_run", lang, run=sanitize(info.run_label, RUN_CHARS, one_line=True))

    def answered(yes: bool | None) -> None:
        if yes:
            go_on()

    screen.app.push_screen(ConfirmScreen(question, lang, again=bound_keys(screen, asking)), answered)
