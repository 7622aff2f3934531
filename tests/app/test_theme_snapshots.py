"""Every shipped theme at 80×24 (the size specview must be good at): a finished run, fixed seed."""

from __future__ import annotations

import pytest

from specview.backends.factory import make_backend
from specview.features.live.app import SpecviewApp
from specview.kernel.runspec import RunSpec
from specview.themes.loader import shipped_themes
from tests.support.app_helpers import wait_finished

THEMES = sorted(theme.name for theme in shipped_themes())


@pytest.mark.parametrize("theme", THEMES)
def test_every_theme_at_80x24(snap_compare: object, theme: str) -> None:
    # a run whose text fits the view: the view does not jump, so the snapshot is the same under any load
    spec = RunSpec(preset="glm-5.2-mtp", seed=5, speed=0.0, max_rounds=14)
    app = SpecviewApp(spec, make_backend(spec), theme_name=theme)
    assert callable(snap_compare)
    assert snap_compare(app, terminal_size=(80, 24), run_before=wait_finished)
