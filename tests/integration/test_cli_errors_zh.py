"""A bad command line under `--lang zh`, from a real `python -m specview`: one line, exit code 2, said in
Chinese, argparse's own words too (cli/argparse_words.py), option names and values kept as given; and the
same command lines in English exactly as before."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from specview.texts.catalog import area, text

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")
SERVERS = "'auto', 'llama-server', 'vllm', 'sglang', 'tabbyapi', 'generic'"
# each bad command line, what it says in Chinese, and what it said (and says) in English
CASES = {
    "missing-required": (["compare"], "缺少必需的参数：SELECTOR",
                         "the following arguments are required: SELECTOR"),
    "bad-int": (["--gamma", "x"], "参数 --gamma：--gamma 必须是整数，给出的是 'x'",
                "argument --gamma: --gamma must be an integer, got 'x'"),
    "bad-number": (["--fps", "x"], "参数 --fps：--fps 必须是数字，给出的是 'x'",
                   "argument --fps: --fps must be a number, got 'x'"),
    "invalid-choice": (["--server", "nope"], f"参数 --server：无效的选择：'nope'（可选：{SERVERS}）",
                       f"argument --server: invalid choice: 'nope' (choose from {SERVERS})"),
    "missing-value": (["--gamma"], "参数 --gamma：需要一个值", "argument --gamma: expected one argument"),
    "unrecognized": (["presets", "x", "y"], "无法识别的参数：x y", "unrecognized arguments: x y"),
    "not-allowed-with": (["replay", "f.jsonl", "--json", "--markdown"], "参数 --markdown：不能与参数 --json 同时使用",
                         "argument --markdown: not allowed with argument --json"),
    "bad-list": (["sweep", "gamma", "--gammas", "9-1"],
                 "参数 --gammas：--gammas 的格式应为 1-6 或 1,2,4，给出的是 '9-1'",
                 "argument --gammas: --gammas must look like 1-6 or 1,2,4, got '9-1'"),
    "bad-tree": (["--tree", "0x3"], "参数 --tree：--tree 0x3：宽度和深度都必须至少为 1",
                 "argument --tree: --tree 0x3: width and depth must be at least 1"),
}
UNKNOWN_OPTION = "未知选项 --bogus（见 specview --help）"  # said before argparse reads (cli/option_check.py)


def _specview(*argv: str, tmp_path: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SPECVIEW_")}
    full = base | {"PYTHONPATH": str(ROOT), "SPECVIEW_CONFIG": str(tmp_path / "none.toml")} | (env or {})
    return subprocess.run([sys.executable, "-m", "specview", *argv], capture_output=True, text=True, timeout=120,
                          env=full, cwd=tmp_path, stdin=subprocess.DEVNULL)


def _one_line(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 2, out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("specview: error: "), out.stderr
    assert out.stdout == ""
    return lines[0].removeprefix("specview: error: ")


@cache
def english_words() -> frozenset[str]:
    """The words argparse's messages and the option types' reasons are made of in English."""
    en = area("cli_errors", "en")
    said = [value for key, value in en.items() if key.startswith(("cli_errors.argparse.", "cli_errors.value."))]
    said.append(text("clierr.usage", "en"))
    return frozenset(word.lower() for line in said for word in re.findall(r"[A-Za-z]{3,}", re.sub(r"{\w+}", "", line))
                     if word.lower() not in {"chatml", "gemma", "none", "chat", "template", "specview", "help"})


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_command_line_in_chinese_is_one_line_without_english(case: str, tmp_path: Path) -> None:
    argv, chinese, _ = CASES[case]
    said = _one_line(_specview("--lang", "zh", *argv, tmp_path=tmp_path))
    assert said == f"{chinese}（参见 specview --help）"
    given = " ".join(argv) + SERVERS
    left = {word.lower() for word in re.findall(r"[A-Za-z]{3,}", said) if word not in given}
    assert left & english_words() == set(), said


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_same_command_lines_in_english_are_as_they_were(case: str, tmp_path: Path) -> None:
    argv, _, english = CASES[case]
    assert _one_line(_specview(*argv, tmp_path=tmp_path)) == f"{english} (see specview --help)"


def test_an_unknown_option_and_the_language_from_the_environment(tmp_path: Path) -> None:
    assert _one_line(_specview("--lang", "zh", "--bogus", tmp_path=tmp_path)) == UNKNOWN_OPTION
    by_env = _one_line(_specview("--gamma", "x", tmp_path=tmp_path, env={"SPECVIEW_LANG": "zh"}))
    assert by_env == "参数 --gamma：--gamma 必须是整数，给出的是 'x'（参见 specview --help）"


def test_a_hostile_value_stays_one_clean_chinese_line(tmp_path: Path) -> None:
    out = _specview("--lang", "zh", "--server", "\x1b]0;PWNED\x07\nnext", tmp_path=tmp_path)
    said = _one_line(out)
    assert said.startswith("参数 --server：无效的选择：") and CJK.search(said)
    assert "\x1b" not in out.stderr and "\x07" not in out.stderr
