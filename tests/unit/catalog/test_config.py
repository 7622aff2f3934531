"""Config file and SPECVIEW_* variables: good values apply, bad ones are reported and ignored."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from specview.boundary.api_key import ApiKey, resolve_api_key
from specview.catalog.config import load_config


def test_values_and_problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "okabe-ito"\nlang = "fr"\nspeed = 2\ncolour = "x"\napi_key = "sk-conf-SECRET"\n')
    for var in ("SPECVIEW_THEME", "SPECVIEW_LANG", "SPECVIEW_PRESET", "SPECVIEW_SPEED"):
        monkeypatch.delenv(var, raising=False)
    config = load_config(path)
    assert config.theme == "okabe-ito" and config.speed == 2.0 and config.lang is None
    assert any("'lang'" in str(p) and str(path) in str(p) for p in config.problems)
    assert any("unknown key 'colour'" in str(p) for p in config.problems)
    assert "sk-conf-SECRET" not in repr(config)
    monkeypatch.setenv("SPECVIEW_LANG", "zh")
    monkeypatch.setenv("SPECVIEW_SPEED", "fast")
    config = load_config(path)
    assert config.lang == "zh" and config.speed is None
    assert any("SPECVIEW_SPEED" in str(p) for p in config.problems)


def test_broken_toml_is_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("theme = [")
    config = load_config(path)
    assert config.theme is None and "cannot read the config" in str(config.problems[0])


def test_the_config_key_is_named_and_comes_before_the_ambient_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The config's `api_key` is a key the user chose (sent to their --url); OPENAI_API_KEY is not."""
    path = tmp_path / "config.toml"
    path.write_text('api_key = "sk-conf-SECRET"\n')
    monkeypatch.setenv("SPECVIEW_CONFIG", str(path))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert resolve_api_key(None, load_config().api_key) == ApiKey("sk-conf-SECRET", named=True)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert resolve_api_key(None, load_config().api_key) == ApiKey("sk-conf-SECRET", named=True)


def test_config_preset_is_the_default_for_bench(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('preset = "glm-5.2-mtp"\n')
    env = {**os.environ, "SPECVIEW_CONFIG": str(path)}
    out = subprocess.run([sys.executable, "-m", "specview", "bench", "--rounds", "5", "--json"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert '"preset": "glm-5.2-mtp"' in out.stdout


def test_fps_and_export_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from specview.cli.app_run import ui_settings
    from specview.cli.parser import build_parser

    path = tmp_path / "config.toml"
    path.write_text(f'fps = 5\nexport_dir = "{tmp_path}"\n')
    monkeypatch.setenv("SPECVIEW_CONFIG", str(path))
    for var in ("SPECVIEW_FPS", "SPECVIEW_EXPORT_DIR"):
        monkeypatch.delenv(var, raising=False)
    config = load_config()
    assert config.fps == 5.0 and config.export_dir == str(tmp_path) and not config.problems
    assert ui_settings(build_parser().parse_args([])).fps == 5.0
    assert ui_settings(build_parser().parse_args(["--fps", "12"])).fps == 12.0  # the command line wins
    assert ui_settings(build_parser().parse_args(["replay", "x.jsonl", "--fps", "2"])).fps == 2.0
    monkeypatch.setenv("SPECVIEW_FPS", "500")
    config = load_config()
    said = [str(p) for p in config.problems]
    assert config.fps is None and any("SPECVIEW_FPS" in p and "between 1 and 60" in p for p in said)
