"""The config loader says where each value came from (Config.sources): the file, a SPECVIEW_* variable
over it, or nothing (the default), and a refused value has no origin, since the default applies."""

from __future__ import annotations

from pathlib import Path

import pytest

from specview.catalog.config import ENV_KEYS, SettingOrigin, SettingSource, load_config


@pytest.fixture(autouse=True)
def no_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ENV_KEYS:
        monkeypatch.delenv(f"SPECVIEW_{key.upper()}", raising=False)


def test_a_file_value_is_from_the_file_and_a_key_left_out_is_the_default(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('speed = 2\nchat_template = "chatml"\n[watch.alerts]\nwindow_s = 10\n')
    config = load_config(path)
    file = SettingSource(SettingOrigin.FILE, str(path))
    assert config.source("speed") == file and config.source("chat_template") == file
    assert config.source("watch.alerts.window_s") == file
    assert config.source("theme") == SettingSource(SettingOrigin.DEFAULT, "")
    assert config.source("watch.alerts.alpha_drop").origin is SettingOrigin.DEFAULT


def test_a_variable_overrides_the_file_and_says_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    path.write_text('preset = "medusa"\nlang = "en"\n')
    monkeypatch.setenv("SPECVIEW_PRESET", "eagle3")
    config = load_config(path)
    assert config.preset == "eagle3"
    assert config.source("preset") == SettingSource(SettingOrigin.ENV, "SPECVIEW_PRESET")
    assert config.source("lang") == SettingSource(SettingOrigin.FILE, str(path))


def test_a_refused_value_has_no_origin_and_the_default_applies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    path.write_text('speed = 2\nfps = 500\n[watch.alerts]\nwindow_s = -1\n')
    monkeypatch.setenv("SPECVIEW_SPEED", "fast")  # bad: the default, not the file's 2
    config = load_config(path)
    assert config.speed is None and config.fps is None and not config.watch_alerts
    assert {key: config.source(key).origin for key in ("speed", "fps", "watch.alerts.window_s")} == {
        "speed": SettingOrigin.DEFAULT, "fps": SettingOrigin.DEFAULT, "watch.alerts.window_s": SettingOrigin.DEFAULT}
    assert len(config.problems) == 3


def test_sources_is_no_key_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('sources = "x"\n')
    config = load_config(path)
    assert config.sources == {} and any("unknown key 'sources'" in str(p) for p in config.problems)
