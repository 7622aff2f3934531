"""Every Learn screen in Chinese, at 120×40 (each slider through all its values) and at 80×24 (every page):
no space after a Chinese full stop, and
no Latin word on screen but the allowed ones — glossary terms the article itself writes in Latin (token),
names of models, products, vendors, papers and sources, units and formats, symbols and identifiers
(a letter, a name with a digit or an underscore), key names, and commands with their options and paths.
"dense 8B · BF16" or "Apple M4 Max (top bin)" on a zh screen fails it."""

from __future__ import annotations

import argparse
import re
from functools import cache

import pytest

from specview.catalog.glossary import glossary
from specview.catalog.presets import load_presets
from specview.cli.parser import build_parser
from specview.compat.stdlib_compat import SubParsersAction, parser_actions
from tests.support.learn_walk import SIZES, Stop, numbers, walk_screen

# Latin words a zh Learn screen keeps: each is a name (of a model, product, vendor, paper, author, engine or
# source), a unit, a format or an abbreviation the article also writes in Latin
NAMES = frozenset("""
    Apple Max NVIDIA AMD Google Gemma Qwen DeepSeek GLM EAGLE Medusa MagicDec SGLang vLLM LLaMA Llama llama cpp
    Silicon Hugging Face Chen Leviathan Gloeckle Deep Sets IndexShare NextN Modal Vultr notebookcheck regantih
    alpharomercoma
    mikasenghaas modal cloud atlas inferenceengineering tech com google tpu docs gist md METHODOLOGY numpy
    MTP MoE KV LM FFN FC GQA MLA CPU GPU TPU RTX SXM GGUF gguf FLOP QPS TV GB TB TF PF ms tok
    argmax logit logits min max norm Norm proj enorm hnorm fc join gram server FILE URL
""".split())  # noqa: SIM905 - a list to read, not to type; fc and join: the fusion's projections (explain/fusion.py)
ID = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:[-.][A-Za-z0-9_]+)*")
COMMAND = re.compile(r"specview(?: [\x21-\x7e]+)*")  # a command as typed: ASCII words after `specview`
OPTION = re.compile(r"(?<![\w-])--?[a-z][\w-]*(?: [A-Z][\w.]*)?")  # --target FILE.gguf, --json, a -assistant checkpoint
PATH = re.compile(r"[~\w.-]*/[\w./~-]+")
STRAY_SPACE = re.compile(r".{0,12}[。；：] {1,2}[\u4e00-\u9fffA-Za-z].{0,12}")  # not a cell's 。 then the next column
QUOTED = re.compile(r"「[^」]*」|`[^`]*`")  # a source's own title, a command in backquotes


@cache
def allowed() -> frozenset[str]:
    """The names above, the zh glossary's Latin words, the presets' ids and the commands' names."""
    found = set(NAMES)
    for term in glossary("zh"):
        found |= set(ID.findall(term.word))
    for preset_id in load_presets():
        found |= set(re.split(r"[-.]", preset_id))

    def walk(parser: argparse.ArgumentParser) -> None:
        for action in parser_actions(parser):
            if isinstance(action, SubParsersAction):
                found.update(action.choices)
                for sub in action.choices.values():
                    walk(sub)

    walk(build_parser("zh"))
    return frozenset(found)


def latin_words(text: str) -> set[str]:
    """The Latin words of `text` a zh screen may not show: commands, options, paths, quoted titles, symbols
    (one letter) and identifiers (with a digit or an underscore) left out."""
    for pattern in (QUOTED, COMMAND, OPTION, PATH):
        text = pattern.sub(" ", text)
    parts = {part for word in ID.findall(text) if not re.search(r"[\d_]", word) for part in re.split(r"[-.]", word)}
    return {part for part in parts if len(part) > 1} - allowed()


def strays(stop: Stop, keys: set[str]) -> set[str]:
    return {w for w in latin_words(stop.text) if w.lower() not in keys}


KEYS = {"esc", "f1", "enter", "space", "tab", "pgup", "pgdn", "up", "down", "left", "right", "home", "end"}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("number", numbers())
async def test_a_zh_learn_screen_shows_no_latin_word_outside_the_allowed_list(number: int,
                                                                             size: tuple[int, int]) -> None:
    found: dict[str, str] = {}
    spaced: dict[str, str] = {}
    async for stop in walk_screen(number, "zh", size, sliders=size == SIZES[0]):
        for word in strays(stop, KEYS):
            found.setdefault(word, stop.where)
        for line in stop.text.splitlines():  # a Chinese full stop takes no space after it
            spaced.update({hit: stop.where for hit in STRAY_SPACE.findall(line)})
    assert found == {}, f"Learn {number} zh {size}: Latin words on screen (word: where) {found}"
    assert spaced == {}, f"Learn {number} zh {size}: a space after 。 {spaced}"


@pytest.mark.parametrize(("text", "expected"), [
    ("稠密 8B · BF16", set()),
    ("dense 8B · BF16", {"dense"}),
    ("MoE 26B, 4B active · BF16", {"active"}),
    ("Apple M4 Max (top bin)", {"top", "bin"}),
    ("或使用 specview learn 2 --target FILE.gguf。", set()),
    ("bench --json 在 acceptance_by_context 中给出", set()),
    ("● 你的 γ 扫描（/root/.local/state/specview/sweeps/gamma.json）", set()),
    ("mikasenghaas 的 gist「accelerator intensity」", set()),
    ("✓ kept ✗ refused", {"kept", "refused"}),
    ("llama.cpp 的 llama-server；n-gram；inferenceengineering.tech", set()),
    ("top-bin", {"top", "bin"}),
    ("按 -assistant 配置；Hugging Face 以 assistant_model=… 传入", set()),
])
def test_the_latin_filter_keeps_names_and_finds_english(text: str, expected: set[str]) -> None:
    assert latin_words(text) == expected
