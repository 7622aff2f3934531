"""Who chooses a local run's chat template (--chat-template, the config's chat_template, else the
GGUF), and how the choice is shown: the status line, bench --json, a recording's header."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from specview.backends.local.run_options import LlamaRunOptions, llama_options
from specview.backends.replay import recorded_info
from specview.catalog.config import load_config
from specview.cli.parser import build_parser
from specview.cli.runspec_args import spec_from_args
from specview.features.live.run_text import note_texts, notes_text, run_title
from specview.features.record.recorder import recording_header
from specview.features.record.recording import Header
from specview.kernel.backend import BackendInfo, Note
from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec
from specview.report.run_json import prompt_format_dict

LOCAL = ["bench", "--target", "t.gguf", "--no-spec"]
INFO = BackendInfo(backend="llama", label="t.gguf · plain · CPU", gamma=None, temperature=0.0, model="t.gguf")


def spec_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str, *flags: str) -> RunSpec:
    path = tmp_path / "config.toml"
    path.write_text(config)
    monkeypatch.setenv("SPECVIEW_CONFIG", str(path))
    return spec_from_args(build_parser().parse_args([*LOCAL, *flags]))


def test_the_option_then_the_config_then_the_gguf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own = llama_options(spec_with(tmp_path, monkeypatch, ""))
    assert (own.chat_template, own.chat_template_from) == (None, None)  # the GGUF decides
    own = llama_options(spec_with(tmp_path, monkeypatch, 'chat_template = "chatml"\n'))
    assert (own.chat_template, own.chat_template_from) == ("chatml", "config")
    spec = spec_with(tmp_path, monkeypatch, 'chat_template = "chatml"\n', "--chat-template", "none")
    own = llama_options(spec)
    assert (own.chat_template, own.chat_template_from) == ("none", "option")
    assert spec.header_fields()["settings"]["chat_template"] == "none"


@pytest.mark.parametrize("value", ['"chat ml"', '""', "3", '"../../etc"', f'"{"x" * 65}"'])
def test_a_bad_config_value_is_reported_and_ignored(tmp_path: Path, value: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f"chat_template = {value}\n")
    config = load_config(path)
    assert config.chat_template is None
    assert any("'chat_template' must be a built-in chat template's name" in str(p) for p in config.problems)


@pytest.mark.parametrize("value", ["chat ml", "", ".x", "<|im_start|>"])
def test_a_bad_option_is_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args([*LOCAL, "--chat-template", value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--chat-template must be a built-in chat template's name" in err


@pytest.mark.parametrize(("note", "en", "zh"), [
    (Note("prompt_raw"), "raw completion", "原始续写（无对话模板）"),
    (Note("prompt_template_gguf", {"name": "gemma"}), "chat template gemma (from the GGUF)",
     "对话模板 gemma（来自 GGUF）"),
    (Note("prompt_template_option", {"name": "chatml"}), "chat template chatml (--chat-template)",
     "对话模板 chatml（--chat-template）"),
])
def test_the_status_line_and_json_say_which(note: Note, en: str, zh: str) -> None:
    info = replace(INFO, prompt_format=note)
    assert run_title(info, "en").endswith(f" · {en}") and run_title(info, "zh").endswith(f" · {zh}")
    assert prompt_format_dict(info) == {**note.to_dict(), "text": en}
    assert notes_text(replace(info, notes=(Note("device_cpu", {"threads": "1"}),)), "en") == f"CPU, 1 threads; {en}"
    assert prompt_format_dict(INFO) is None and "completion" not in run_title(INFO, "en")


def test_a_name_from_outside_is_made_safe_and_an_unknown_id_left_out() -> None:
    (shown,) = note_texts([Note("prompt_template_gguf", {"name": "x\x1b[31m\ny"})], "en")
    assert shown.startswith("chat template x") and "\x1b" not in shown and "\n" not in shown
    assert note_texts([Note("prompt_from_a_newer_specview")], "en") == []


def test_the_recording_header_keeps_it(tmp_path: Path) -> None:
    info = BackendInfo(backend="llama", label="t.gguf", gamma=4, temperature=0.0,
                       prompt_format=Note("prompt_template_config", {"name": "chatml"}))
    own = LlamaRunOptions(target="t.gguf", chat_template="chatml", chat_template_from="config")
    header = recording_header(info, RunSpec(options=own))
    assert header["backend"]["prompt_format"] == {"id": "prompt_template_config", "values": {"name": "chatml"}}
    assert header["settings"]["chat_template"] == "chatml"
    assert recorded_info(Header(header, 1), tmp_path / "r.jsonl").prompt_format == info.prompt_format
    del header["backend"]["prompt_format"]  # a recording made before specview wrote it
    assert recorded_info(Header(header, 1), tmp_path / "r.jsonl").prompt_format is None
    header["backend"]["prompt_format"] = {"id": 7}
    with pytest.raises(BackendError, match=r"line 1: the header is malformed \(backend.prompt_format"):
        recorded_info(Header(header, 1), tmp_path / "r.jsonl")
