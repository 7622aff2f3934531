"""The language of the CLI's error line (cli/error_lang.py): the live view's choice, never a second failure."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from specview.cli.error_lang import error_lang


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("SPECVIEW_CONFIG", str(path))
    monkeypatch.delenv("SPECVIEW_LANG", raising=False)
    return path


def test_the_parsed_lang_wins(config: Path) -> None:
    config.write_text('lang = "en"\n', encoding="utf-8")
    assert error_lang(argparse.Namespace(lang="zh"), ["--lang", "en"]) == "zh"


def test_before_parsing_the_raw_command_line_is_read(config: Path) -> None:
    assert error_lang(None, ["learn", "--lang", "zh", "999"]) == "zh"
    assert error_lang(None, ["--lang=zh", "--lang", "en"]) == "en"  # the last one, as argparse takes it
    assert error_lang(None, ["serve", "--", "--lang", "zh"]) == "en"  # a served command line is not ours
    assert error_lang(None, ["--lang", "fr"]) == "en"
    assert error_lang(None, ["--lang"]) == "en"


def test_without_a_lang_the_config_then_the_environment(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert error_lang(argparse.Namespace(lang=None), []) == "en"
    config.write_text('lang = "zh"\n', encoding="utf-8")
    assert error_lang(argparse.Namespace(lang=None), []) == "zh"
    config.unlink()
    monkeypatch.setenv("SPECVIEW_LANG", "zh")
    assert error_lang(None, []) == "zh"


def test_a_config_that_cannot_be_read_is_english(config: Path) -> None:
    config.write_bytes(b"\xff\xfe = [[[")
    assert error_lang(None, []) == "en"
