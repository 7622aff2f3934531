"""Snapshots of Learn screens 7, 8, 9 and 11 (second edition) in English and Chinese, at 120×40 and 80×24.
Screen 10's are in test_learn_snapshots.py. No saved sweep: the state folder is the test's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from specview.features.learn.app import LearnApp
from specview.features.learn.registry import lesson
from tests.support.learn_presets import SNAPSHOT_PRESETS


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("number", [7, 8, 9, 11])
def test_learn2_screen_snapshot(snap_compare: object, number: int, lang: str, size: tuple[int, int],
                                tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no user presets: the fixed set alone
    assert callable(snap_compare)
    # screens 2 and 8 say how to get a local model, which depends on the llama extra: pinned, not looked up
    app = LearnApp(lesson(number), lang=lang, presets=SNAPSHOT_PRESETS, llama_installed=True)
    assert snap_compare(app, terminal_size=size)
