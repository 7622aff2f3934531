"""`specview --help` in Chinese, as users run it: every command's help in a real process on an 80-column
terminal, chosen by --lang, SPECVIEW_LANG or the config file. No line is wider than 80 cells, each help
has Chinese, and no English word is left but option names, metavars, choices, ids and a few Latin terms."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from specview.cli.cell_wrap import cells
from specview.cli.parser import build_parser
from specview.compat.stdlib_compat import SubParsersAction, parser_actions
from tests.integration.test_docs_commands import subcommands

ROOT = Path(__file__).resolve().parents[2]
LATIN_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9_]*")  # a word, not the x of 3x4
CHINESE = re.compile(r"[\u4e00-\u9fff]")
# Latin words a Chinese help keeps: names of things, formats, protocols, units, examples
ALLOWED = frozenset("""
    token tok s GGUF gguf llama cpp ngram n gram Gemma gemma gemma3 m k q4 chatml none auto CPU GPU AMX
    OpenAI OPENAI_API_KEY API https http api openai com v1 models completions metrics SPECVIEW_ keymap
    JSON Lines CSV Markdown md SSH fps URL CMD shell cron CI Prometheus vLLM SGLang llama-server
    Ctrl C textual serve Leviathan qwen3 mtp glm T D W x e g id host port model FILE replay url
    pip install specview tui demo serve_max_sessions job space n r p q F1 tabbyapi generic sglang vllm
    llama_server v A B alerts Python python Textual CUDA Metal BLAS
    sim default toml TOML severity flag confidence evidence props slots
""".split())  # noqa: SIM905 - a list to read, not to type


@cache
def parser_words() -> frozenset[str]:
    """The words option names, metavars, choices and command names are made of."""
    found: set[str] = set()

    def walk(parser: argparse.ArgumentParser) -> None:
        found.update(LATIN_WORD.findall(parser.prog))
        for action in parser_actions(parser):
            for text in [*action.option_strings, *(action.metavar if isinstance(action.metavar, tuple) else
                                                   [action.metavar or ""]), action.dest or "",
                         (action.dest or "").upper()]:
                found.update(LATIN_WORD.findall(text.replace("-", "_").replace("_", " ")))
            if isinstance(action, SubParsersAction):
                found.update(action.choices)
                for sub in action.choices.values():
                    walk(sub)
            elif action.choices is not None:
                found.update(LATIN_WORD.findall(" ".join(map(str, action.choices))))

    walk(build_parser())
    return frozenset(found)


def helped(tmp: Path, words: list[str], *, lang_flag: bool = True, env_lang: str | None = None,
           config: str = "") -> str:
    (tmp / "config.toml").write_text(config, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECVIEW_")}
    env.update(PYTHONPATH=str(ROOT), COLUMNS="80", LINES="40", NO_COLOR="1", SPECVIEW_CONFIG=str(tmp / "config.toml"),
               XDG_CONFIG_HOME=str(tmp / "config"))
    if env_lang:
        env["SPECVIEW_LANG"] = env_lang
    args = ["--lang", "zh", *words, "--help"] if lang_flag else [*words, "--help"]
    out = subprocess.run([sys.executable, "-m", "specview", *args], capture_output=True, text=True, timeout=60,
                         env=env, cwd=tmp, stdin=subprocess.DEVNULL)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    return out.stdout


def english_left(out: str) -> set[str]:
    return {w for w in LATIN_WORD.findall(out) if w not in ALLOWED and w not in parser_words()}


@pytest.mark.parametrize("words", subcommands(), ids=lambda words: " ".join(words) or "specview")
def test_every_commands_help_is_chinese_within_80_columns(words: list[str], tmp_path: Path) -> None:
    out = helped(tmp_path, words)
    assert out.startswith(f"用法：{' '.join(['specview', *words])}")
    assert "\n选项：\n" in out and "显示此帮助并退出" in out
    assert not re.search(r"^ *\S.*[\u4e00-\u9fff]:$", out, re.MULTILINE)  # every heading ends "：", not argparse's ":"
    wide = [line for line in out.splitlines() if cells(line) > 80]
    assert wide == []
    assert len(CHINESE.findall(out)) > 10
    assert english_left(out) == set()
    assert helped(tmp_path, words, lang_flag=False, env_lang="zh") == out  # SPECVIEW_LANG=zh: the same


def test_the_config_files_language_and_the_check_itself(tmp_path: Path) -> None:
    out = helped(tmp_path, ["bench"], lang_flag=False, config='lang = "zh"\n')
    assert out.startswith("用法：specview bench") and "运行什么：" in out
    english = helped(tmp_path, ["bench"], lang_flag=False)
    assert english.startswith("usage: specview bench") and "what to run:" in english
    assert {"simulate", "people"} <= english_left(english)  # the check finds English words
