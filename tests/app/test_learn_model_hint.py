"""What a Learn screen that needs a local model says to get one follows what the app is told is installed
(`LearnApp(llama_installed=…)`), not the machine: the snapshots of screens 2 and 8 pin it, so they draw
the same with or without the `llama` extra. Here the extra is hidden from the process (as on a machine
without it) and the screen still says what it is told."""

from __future__ import annotations

import sys

import pytest

from specview.features.learn.app import LearnApp
from specview.features.learn.local_model import llama_installed
from specview.features.learn.registry import lesson_named
from specview.widgets.prose import Prose


def gguf_hint(app: LearnApp) -> str:
    widget = app.screen.query_one("#gguf_hint")
    said = widget.text if isinstance(widget, Prose) else str(widget.render())
    return said.replace("\u00a0", " ")  # terms are bound with no-break spaces


@pytest.mark.parametrize("believed", [True, False])
async def test_the_hint_says_what_the_app_is_told_is_installed(believed: bool,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import llama_cpp fails here, find_spec finds none
    assert not llama_installed()
    app = LearnApp(lesson_named("fusion"), lang="en", llama_installed=believed)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        said = gguf_hint(app)
    if believed:
        assert "specview learn 8 --demo" in said and "pip install" not in said
    else:
        assert "pip install 'specview-tui[llama,demo]'" in said
