"""`specview info` in words: each kind of name said in both languages, a credential never printed,
a value from outside printed without its control characters."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

import pytest

from specview.backends.local.build_probe import BuildFeatures, parse_system_info
from specview.boundary.path_kind import path_kind
from specview.catalog.config import load_config
from specview.features.info.render import lines, path_words
from specview.features.info.report import assemble, environment, kind_json

HAN = re.compile(r"[\u4e00-\u9fff]")


def test_each_kind_in_both_languages(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("abc")
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    said = {name: {lang: path_words(kind_json(path_kind(tmp_path / name)), "file", lang) for lang in ("en", "zh")}
            for name in ("file", "folder", "fifo", "link", "dangling", "nothing")}
    assert said["file"]["en"] == "a file, 3 bytes"
    assert said["folder"]["en"] == "a folder, where specview wants a file"
    assert said["fifo"]["en"] == "a FIFO: never opened"
    assert said["link"]["en"] == f"a link to {tmp_path / 'file'}, a file, 3 bytes"
    assert said["dangling"]["en"].startswith(f"a dangling link to {tmp_path / 'gone'}")
    assert said["nothing"]["en"] == "not there"
    assert all(HAN.search(words["zh"]) for words in said.values()), said


def test_credentials_and_controls_never_reach_the_output(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SPECVIEW_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("SPECVIEW_EXPORT_DIR", "/tmp/\x1b[31mred\x07")
    monkeypatch.setenv("SPECVIEW_PROMETHEUS_TOKEN", "tok-0123456789abcdef")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-render-0123456789")
    found = environment()
    assert found["SPECVIEW_PROMETHEUS_TOKEN"] == "***" and found["OPENAI_API_KEY"] == "***"
    report = assemble(argparse.Namespace(), load_config(), None)
    for lang in ("en", "zh"):
        text = "\n".join(lines(report, lang))
        assert "\x1b" not in text and "\x07" not in text and "␛[31mred␇" in text
        assert "tok-0123456789abcdef" not in text and "sk-render-0123456789" not in text


def test_the_build_in_words_and_without_llama_cpp_python(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SPECVIEW_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.delenv("SPECVIEW_CPU_FEATURES", raising=False)
    cuda = BuildFeatures(("CUDA", "CPU"), parse_system_info("CUDA : ARCHS = 890 | CPU : AVX2 = 1 | AMX_INT8 = 1 |"),
                         gpu_offload=True)
    report = assemble(argparse.Namespace(repack=False), load_config(), cuda)
    assert report["llama_cpp"]["repack"] == {"on": False, "note": "repack_asked_off"}  # as a local run decides
    assert {k: report["llama_cpp"][k] for k in ("cuda", "metal", "blas", "gpu_offload", "amx")} == {
        "cuda": True, "metal": False, "blas": False, "gpu_offload": True, "amx": True}
    said = lines(report, "en")
    assert any(line.split()[:3] == ["a", "local", "run"] and "--no-repack" in line for line in said)
    assert "  CUDA · Metal · BLAS · Vulkan  yes · no · no · no" in said
    assert any(line.split()[:3] == ["build's", "CPU", "features"] and "AVX2 AMX_INT8" in line for line in said)
    bare = assemble(argparse.Namespace(), load_config(), None)
    assert bare["llama_cpp"]["installed"] is False and isinstance(bare["llama_cpp"]["cpu"]["amx"], bool)
    said = lines(bare, "en")
    assert any(line.split() == ["build", "not", "installed"] for line in said)
