"""Error texts in both languages (issue 23 item 4): the catalog walker's part for errors.

Each error table (`error.*`, and each owner's `<owner>err.*` in the owner's texts/<owner>.<lang>.toml)
has the same ids and the same fields in every language, and every text, filled, has no "?" hole and
(zh) is Chinese. Then errors are raised for real, at least one per converted module and one per
class: each names ids every catalog has, gives every field its text names, reads in English as
`str(exc)` and in Chinese as Chinese.
"""

from __future__ import annotations

import argparse
import pickle
import re
import string
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest

from specview.catalog.claims import parse_claim
from specview.catalog.config import load_config
from specview.catalog.preset_shapes import parse_shape
from specview.catalog.presets import MAX_PRESET_BYTES, get_preset, load_preset_file, load_presets
from specview.catalog.provenance import parse_provenance
from specview.catalog.small_files import read_toml
from specview.cli.app_run import ui_settings
from specview.features.learn.command import target_path
from specview.features.learn.registry import lesson
from specview.features.live.compare_command import run_compare
from specview.features.record.recorder import check_record_path
from specview.features.record.recording import read_recording
from specview.features.serve.access import public_address
from specview.kernel.errors import (
    BackendError,
    CliError,
    ConfigError,
    PresetError,
    RecordingError,
    SpecviewError,
    describe_error,
)
from specview.texts.catalog import Phrase, catalog, languages, text

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _area(name: str, lang: str) -> dict[str, str]:
    """One error table's texts in one language (`error.*`, or an owner's `<owner>err.*`, filed with the
    owner's other texts)."""
    return {key: value for key, value in catalog(lang).items() if key.split(".")[0] == name}


def _is_error_table(table: str) -> bool:
    """`error` (kernel/errors.py) and each owner's `<owner>err`; not `oserr` (an errno's reason, not an error)."""
    return table == "error" or (table.endswith("err") and table != "oserr")


AREAS = sorted({key.split(".")[0] for key in catalog("en") if _is_error_table(key.split(".")[0])})


def test_the_error_areas_are_found() -> None:
    assert {"error", "clierr", "catalogerr", "backenderr", "watcherr", "recorderr", "learnerr"} <= set(AREAS)


@pytest.mark.parametrize("area", AREAS)
def test_an_error_area_has_the_same_ids_and_fields_in_every_language(area: str) -> None:
    english = _area(area, "en")
    for lang in languages():
        other = _area(area, lang)
        assert set(other) == set(english), lang
        assert {k: _fields(v) for k, v in other.items()} == {k: _fields(v) for k, v in english.items()}, lang


# a number and its unit, an option and its value: the same in every language
UNITS = frozenset({"backenderr.sse.mib", "backenderr.prompt.where_option"})


@pytest.mark.parametrize("area", AREAS)
def test_every_error_text_fills_without_holes_and_zh_reads_as_chinese(area: str) -> None:
    for lang in languages():
        for key, template in _area(area, lang).items():
            filled = Phrase(key, **dict.fromkeys(_fields(template), 1.5)).render(lang)  # 1.5 fits :g and !r
            assert filled.count("?") == template.count("?"), (lang, key, filled)
            assert filled != key
            if lang == "zh" and template.strip("{}") not in _fields(template) and key not in UNITS:
                assert CJK.search(filled), (key, filled)  # (a bare "{x}" has no words)


def _walk(phrase: Phrase) -> None:
    """Every id of a message and of its parts is in every catalog, and each gets its fields."""
    for lang in languages():
        assert phrase.key in catalog(lang), (lang, phrase.key)
        assert _fields(text(phrase.key, lang)) <= set(phrase.fields), (lang, phrase.key)
    for value in phrase.fields.values():
        if isinstance(value, SpecviewError):
            _walk(value.phrase)
        elif isinstance(value, Phrase):
            _walk(value)


PRESET = (resources.files("specview") / "presets" / "dflash.toml").read_text(encoding="utf-8")


def _bad_preset(tmp_path: Path) -> Path:
    path = tmp_path / "hot.toml"
    path.write_text(PRESET.replace("temperature = 0.0", "temperature = 6.0", 1), encoding="utf-8")
    return path


def _preset_file(tmp_path: Path) -> None:
    load_preset_file(_bad_preset(tmp_path))


def _unknown_preset(tmp_path: Path) -> None:
    _bad_preset(tmp_path)
    get_preset("no-such-preset", tmp_path)


def _shape(tmp_path: Path) -> None:
    parse_shape({"block": 2}, {}, 4, "mine.toml")


def _provenance(tmp_path: Path) -> None:
    parse_provenance({"no_such_field": {}}, set(), None, "mine.toml")


def _claim(tmp_path: Path) -> None:
    parse_claim({}, "texts/claims.toml claims[0]")


def _config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"lang = '\xff'\n")
    read_toml(path, MAX_PRESET_BYTES, ConfigError)


def _recording(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"type": "round"}\n', encoding="utf-8")
    list(read_recording(path))


def _record_path(tmp_path: Path) -> None:
    check_record_path(tmp_path)


def _serve(tmp_path: Path) -> None:
    public_address("ftp://example.org")


def _learn_screen(tmp_path: Path) -> None:
    lesson(999)


def _learn_target(tmp_path: Path) -> None:
    target_path(argparse.Namespace(target=str(tmp_path / "none.gguf"), demo=False))


def _compare(tmp_path: Path) -> None:
    run_compare(argparse.Namespace(selectors=["sim"]))


def _theme(tmp_path: Path) -> None:
    ui_settings(argparse.Namespace(theme="no-such-theme", speed=None, lang=None))


RAISED: dict[str, tuple[Callable[[Path], None], type[SpecviewError], str]] = {
    # module: (what raises, the class, a word of the English text)
    "catalog/presets": (_preset_file, PresetError, "expected a number in [0, 5]"),
    "catalog/presets (skipped)": (_unknown_preset, PresetError, "(preset file skipped)"),
    "catalog/preset_shapes": (_shape, PresetError, "block drafter"),
    "catalog/provenance": (_provenance, PresetError, "unknown field"),
    "catalog/claims": (_claim, PresetError, "must be a string"),
    "catalog (TOML files)": (_config_file, ConfigError, "not UTF-8 text"),
    "features/record/recording": (_recording, RecordingError, "the first line is not a header"),
    "features/record/recorder": (_record_path, BackendError, "it is a folder"),
    "features/serve/access": (_serve, CliError, "--public-url"),
    "features/learn/registry": (_learn_screen, CliError, "no Learn screen 999"),
    "features/learn/command": (_learn_target, CliError, "no such file"),
    "features/live/compare_command": (_compare, CliError, "got 1"),
    "cli/app_run": (_theme, CliError, "unknown theme 'no-such-theme'"),
}


@pytest.mark.parametrize("where", RAISED)
def test_a_raised_error_reads_in_every_language(where: str, tmp_path: Path) -> None:
    raises, cls, english = RAISED[where]
    with pytest.raises(cls) as caught:
        raises(tmp_path)
    exc = caught.value
    _walk(exc.phrase)
    assert english in str(exc) and describe_error(exc, "en") == str(exc)
    zh = describe_error(exc, "zh")
    assert CJK.search(zh) and zh != str(exc) and exc.phrase.key not in zh, zh
    assert "\n" not in zh


def test_every_error_class_is_raised_once() -> None:
    assert {cls for _, cls, _ in RAISED.values()} >= {PresetError, ConfigError, RecordingError, BackendError, CliError}


def test_the_bad_user_preset_of_the_issue_reads_in_chinese(tmp_path: Path) -> None:
    problems: list[Phrase] = []
    load_presets(tmp_path, problems)
    assert problems == []
    _bad_preset(tmp_path)
    load_presets(tmp_path, problems)
    [problem] = problems
    assert problem.render("en") == (f"{tmp_path / 'hot.toml'}: key 'temperature' is 6.0, expected a number in "
                                    "[0, 5] (preset file skipped)")
    assert problem.render("zh") == (f"{tmp_path / 'hot.toml'}：键 'temperature' 的值为 6.0，应为 [0, 5] 内的数"
                                    "（已跳过该预设文件）")


def test_config_problems_are_said_in_the_ui_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('lang = "zh"\nspeed = -3\ncolour = "red"\n[keymap]\n"no.such" = "f9"\n', encoding="utf-8")
    monkeypatch.setenv("SPECVIEW_CONFIG", str(config))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no user presets
    for problem in load_config().problems:
        _walk(problem)
    zh = ui_settings(argparse.Namespace(theme=None, speed=None, lang=None))  # the config's own language
    assert zh.lang == "zh" and len(zh.problems) == 3
    assert zh.problems[0] == f"{config}：键 'speed' 应为 0（全速）到 1000 之间的数，实际为 -3；改用默认值"
    assert zh.problems[1].startswith(f"{config}：未知键 'colour'，已忽略（已知：")
    assert zh.problems[2].startswith(f"{config}：[keymap] 中没有绑定 'no.such'；已知 id：")
    en = ui_settings(argparse.Namespace(theme=None, speed=None, lang="en"))  # --lang en wins
    assert en.problems[0] == (f"{config}: key 'speed' must be a number between 0 (flat out) and 1000, got -3; "
                              "using the default")


def test_an_error_pickles_with_its_fields() -> None:
    """A run in a child process (backends/process.py) can send the error itself, still to be put into words."""
    inner = RecordingError("/runs/a.jsonl", 3, Phrase("recorderr.not_utf8"))
    sent = pickle.loads(pickle.dumps(BackendError("recorderr.cannot_record", path="/x", reason=inner)))
    assert type(sent) is BackendError and str(sent) == "cannot record to /x: /runs/a.jsonl line 3: not UTF-8 text"
    assert describe_error(sent, "zh") == "无法录制到 /x：/runs/a.jsonl 第 3 行：不是 UTF-8 文本"
    back = pickle.loads(pickle.dumps(inner))
    assert (type(back), back.path, back.line, str(back)) == (RecordingError, inner.path, 3, str(inner))
