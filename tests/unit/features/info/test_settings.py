"""Each effective option and its origin, as the real parser and the real loader give them: the command
line over a variable over the file over the default; every config key listed, other run options when given."""

from __future__ import annotations

from pathlib import Path

import pytest

from specview.catalog.config import ENV_KEYS, WATCH_ALERTS, SettingOrigin, load_config
from specview.cli.parser import build_parser
from specview.features.info.settings import Setting, config_keys, effective


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in ENV_KEYS:
        monkeypatch.delenv(f"SPECVIEW_{key.upper()}", raising=False)
    path = tmp_path / "config.toml"
    path.write_text('preset = "medusa"\nspeed = 2\nconnect_timeout = 9\napi_key = "sk-info-SECRET-123"\n')
    return path


def settings(argv: list[str], path: Path) -> dict[str, Setting]:
    found = effective(build_parser().parse_args(argv), load_config(path))
    return {s.key: s for s in found}


def test_each_origin(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECVIEW_PRESET", "eagle3")
    monkeypatch.setenv("SPECVIEW_LANG", "zh")
    found = settings(["info", "--lang", "en", "--connect-timeout", "3"], config_file)
    assert (found["preset"].value, found["preset"].source.origin, found["preset"].source.where) == (
        "eagle3", SettingOrigin.ENV, "SPECVIEW_PRESET")
    assert (found["lang"].value, found["lang"].source.origin, found["lang"].source.where) == (
        "en", SettingOrigin.OPTION, "--lang")
    assert (found["connect_timeout"].value, found["connect_timeout"].source.origin) == (3.0, SettingOrigin.OPTION)
    assert (found["speed"].value, found["speed"].source.origin) == (2.0, SettingOrigin.FILE)
    assert found["speed"].source.where == str(config_file)
    assert (found["fps"].source.origin, found["theme"].value) == (SettingOrigin.DEFAULT, "specview")
    assert found["request_timeout"].value == 30.0 and found["request_timeout"].source.origin is SettingOrigin.DEFAULT
    assert found["api_key"].source.origin is SettingOrigin.FILE


def test_main_parser_options_before_the_command_count(config_file: Path) -> None:
    found = settings(["--speed", "4", "--theme", "ansi", "info"], config_file)
    assert (found["speed"].value, found["speed"].source.where) == (4.0, "--speed")
    assert (found["theme"].value, found["theme"].source.origin) == ("ansi", SettingOrigin.OPTION)


def test_every_config_key_is_listed_and_other_options_only_when_given(config_file: Path) -> None:
    plain = settings(["info"], config_file)
    assert list(plain) == config_keys()
    assert {f"watch.alerts.{key}" for key in WATCH_ALERTS} <= set(plain)
    given = settings(["info", "--gamma", "5", "--seed", "9", "--url", "http://127.0.0.1:8080"], config_file)
    extra = {key: (s.value, s.source.origin) for key, s in given.items() if key not in plain}
    assert extra == {"gamma": (5, SettingOrigin.OPTION), "seed": (9, SettingOrigin.OPTION),
                     "url": ("http://127.0.0.1:8080", SettingOrigin.OPTION)}
