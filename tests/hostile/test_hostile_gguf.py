"""A GGUF file from someone else: its metadata is text from outside too."""

from __future__ import annotations

from pathlib import Path

import gguf
from gguf_factory import write_fusion_gguf, write_tiny_llama
from hostile_checks import HOSTILE, MARKUP, OSC52, TITLE, assert_terminal_clean, one_error_line
from limited_run import base_env, run_cli
from textual.widgets import Static

from specview.core.explain.context import RunContext
from specview.learn.fusion_screen import FusionScreen
from specview.learn.registry import lesson
from specview.tui.learn_app import LearnApp


def test_hostile_gguf_metadata_is_one_clean_line(tmp_path: Path) -> None:
    """An architecture name carrying escapes: llama.cpp refuses it and quotes it; so do we, visibly."""
    path = tmp_path / f"model{OSC52}.gguf"
    writer_class = gguf.GGUFWriter

    class HostileWriter(writer_class):  # type: ignore[misc, valid-type]
        def __init__(self, file: str, arch: str, *args: object, **kwargs: object) -> None:
            super().__init__(file, arch + TITLE, *args, **kwargs)

    gguf.GGUFWriter = HostileWriter
    try:
        write_tiny_llama(path)
    finally:
        gguf.GGUFWriter = writer_class
    run = run_cli(["bench", "--target", str(path), "--max-tokens", "4", "--json"], base_env(tmp_path))
    line = one_error_line(run.err)
    assert run.returncode == 2, run.err
    assert "␛]0;PWNED-TITLE␇" in line or "\\x1b]0;PWNED-TITLE" in line
    assert_terminal_clean(run.stdout)
    assert_terminal_clean((tmp_path / "state").joinpath("specview", "log", "llama.log").read_bytes())


async def test_hostile_gguf_names_on_the_fusion_screen(tmp_path: Path) -> None:
    """Learn 8 reads a GGUF's tensor names and architecture (g): shown visibly, cut short, never markup."""
    path = write_fusion_gguf(tmp_path / "evil.gguf", arch="qwen35" + MARKUP,
                             extra_name=HOSTILE + "x" * 500 + ".nextn.eh_proj.weight")
    app = LearnApp(lesson(8), run=RunContext(backend="file", target_path=str(path)))
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FusionScreen)
        await pilot.press("g")
        for _ in range(500):
            if screen.gguf is not None:
                break
            await pilot.pause(0.02)
        assert screen.gguf is not None and app.is_running
        shown = str(screen.query_one("#gguf", Static).render())
        assert "␛]0;PWNED-TITLE␇" in shown and "[link=https://evil.example]click" in shown
        assert_terminal_clean(shown.encode())
        assert "x" * 200 not in shown  # the name is cut short, with a mark
