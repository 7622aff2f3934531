"""The Learn screens that list presets (5, 7, 10, 11) list every one, or the fixed set LearnApp is opened with:
what lets the Learn snapshots stay the same when a preset (shipped or the user's) is added."""

from __future__ import annotations

from pathlib import Path

import pytest

from specview.catalog.presets import load_presets
from specview.features.learn.app import LearnApp
from specview.features.learn.base import LearnScreen
from specview.features.learn.registry import lesson
from specview.widgets.slider import Slider
from tests.support.app_helpers import wait_until
from tests.support.learn_presets import SNAPSHOT_PRESETS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("number", [5, 7, 10, 11])
@pytest.mark.parametrize("fixed", [True, False])
async def test_a_new_preset_is_listed_unless_the_set_is_fixed(number: int, fixed: bool, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "specview" / "presets"
    folder.mkdir(parents=True)
    text = (ROOT / "specview" / "presets" / "glm-5.2-mtp.toml").read_text(encoding="utf-8")
    (folder / "aaa-new.toml").write_text(text.replace('id = "glm-5.2-mtp"', 'id = "aaa-new"'), encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    app = LearnApp(lesson(number), presets=SNAPSHOT_PRESETS if fixed else ())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, LearnScreen))
        slider = app.screen.query_one("#preset", Slider)
        listed = [v for v in slider.values if isinstance(v, str) and not v.startswith("@") and v]
        if number == 7:  # its slider picks a row of the survival table, by index
            listed = list(app.screen.preset_ids)  # type: ignore[attr-defined]
        assert listed == (list(SNAPSHOT_PRESETS) if fixed else list(load_presets()))
        assert ("aaa-new" in listed) is not fixed
