"""One glossary (texts/glossary.<lang>.toml) for every text: no catalog text (specview/texts and the
texts beside their modules), Learn screen source, `--help` of any command or line of the documentation
(README.md, docs/**/*.md) uses a variant the glossary replaces (except inside a phrase it names as quoted);
a paired term is said in both languages of a text or in neither, and a verdict's label says its term's word."""

from __future__ import annotations

import argparse
import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from specview.catalog.glossary import Term, glossary
from specview.cli.parser import build_parser
from specview.compat.stdlib_compat import SubParsersAction, parser_actions
from specview.kernel.langs import LANGS
from specview.texts.catalog import catalog
from tests.support.docs_pages import pages

ROOT = Path(__file__).resolve().parents[3]
SOURCES = ROOT / "specview"  # texts/*.<lang>.toml and every `<module>.<lang>.toml` beside its owner
LEARN = ROOT / "specview" / "features" / "learn"


def _texts(data: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """(id, text) for every string of a catalog file, arrays' strings included."""
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _texts(value, f"{name}.")
        elif isinstance(value, list):
            yield from ((f"{name}[{i}]", str(v)) for i, v in enumerate(value))
        else:
            yield name, str(value)


def drifts(terms: tuple[Term, ...], where: str, text: str) -> list[str]:
    """One line per replaced variant `text` uses: where it is, the variant and the glossary's word."""
    return [f"{where}: {variant!r} → use {term.word!r} (glossary term {term.id!r})"
            for term in terms for variant in term.variants_in(text)]


def catalog_drifts(lang: str) -> list[str]:
    out = []
    for path in sorted(SOURCES.rglob(f"*.{lang}.toml")):
        if path.name.startswith("glossary."):
            continue
        where = path.relative_to(SOURCES).as_posix()
        for key, value in _texts(tomllib.loads(path.read_text(encoding="utf-8"))):
            out += drifts(glossary(lang), f"specview/{where} key {key}", value)
    for path in sorted(SOURCES.rglob(f"*.{lang}.txt")):  # the simulated runs' passages
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            out += drifts(glossary(lang), f"specview/{path.relative_to(SOURCES).as_posix()}:{n}", line)
    return out


def helps(lang: str) -> list[tuple[str, str]]:
    """(command, its --help) for `specview` and every subcommand, said in `lang`."""
    found: list[tuple[str, str]] = []

    def walk(parser: argparse.ArgumentParser) -> None:
        found.append((parser.prog, parser.format_help()))
        for action in parser_actions(parser):
            if isinstance(action, SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)

    walk(build_parser(lang))
    return found


def unpaired(en: dict[str, object], zh: dict[str, object]) -> list[str]:
    """Texts that say a paired term's word in one language only (草稿模型 where the English says "drafter")."""
    terms = [t for t in zip(glossary("en"), glossary("zh"), strict=True) if t[0].paired]
    return [f"{key}: {e.word!r} {'in' if e.used_in(str(en[key])) else 'not in'} en, "
            f"{z.word!r} {'in' if z.used_in(str(zh[key])) else 'not in'} zh"
            for key in sorted(en.keys() & zh.keys()) if not key.startswith("glossary.")
            for e, z in terms if e.used_in(str(en[key])) != z.used_in(str(zh[key]))]


def every_term() -> tuple[Term, ...]:
    """Each term with both languages' words, variants and quotes: for texts that mix them (README.md, sources)."""
    by_lang = [glossary(lang) for lang in LANGS]
    return tuple(Term(same[0].id, " / ".join(t.word for t in same), "",
                      tuple(v for t in same for v in t.replaces), tuple(q for t in same for q in t.quoted))
                 for same in zip(*by_lang, strict=True))


def test_the_catalog_texts_use_the_glossarys_words() -> None:
    """Every texts/*.zh.toml and *.en.toml: Learn screens, help, keys, notes, errors."""
    assert [line for lang in LANGS for line in catalog_drifts(lang)] == []


def test_every_commands_help_uses_the_glossarys_words() -> None:
    found = [line for lang in LANGS for prog, said in helps(lang)
             for line in drifts(glossary(lang), f"{prog} --help ({lang})", said)]
    assert len(helps("zh")) >= 15 and found == []


def test_a_paired_term_is_said_in_both_languages_or_in_neither() -> None:
    """草稿模型 is a separate small model: a zh text that says it where the en says "drafter" (an MTP head,
    a block in the trunk) breaks the glossary, and so does 草稿生成器 where the en says "draft model"."""
    assert unpaired(catalog("en"), catalog("zh")) == []


def test_a_planted_unpaired_text_is_found() -> None:
    en, zh = {"k.mtp": "the MTP head is a built-in drafter"}, {"k.mtp": "MTP 头是内置的草稿模型"}
    assert unpaired(en, zh) == ["k.mtp: 'drafter' in en, '草稿生成器' not in zh",
                                "k.mtp: 'draft model' not in en, '草稿模型' in zh"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_verdicts_label_says_the_glossarys_word(lang: str) -> None:
    """Every key that labels a verdict (`….accepted`, `….rejected`, `….discarded`) uses its term's word:
    ✓ accepted, not ✓ kept; 接受, not 保留."""
    words = {t.id: t.word for t in glossary(lang) if t.id in ("accepted", "rejected", "discarded")}
    texts = catalog(lang)
    labels = {key: str(texts[key]) for key in texts if key.rpartition(".")[2] in words}
    assert len(labels) >= 10
    assert [key for key, said in labels.items() if words[key.rpartition(".")[2]] not in said] == []


def test_the_learn_screen_sources_use_the_glossarys_words() -> None:
    found = []
    for path in sorted(LEARN.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                where = f"{path.relative_to(ROOT)} line {node.lineno}"
                found += drifts(every_term(), where, node.value)
    assert found == []


def test_the_docs_use_the_glossarys_words() -> None:
    every = pages()
    assert len(every) >= 18  # README.md and the site's pages
    assert [line for doc in every for n, text in enumerate(doc.lines(), 1)
            for line in drifts(every_term(), doc.where(n), text)] == []


def test_the_glossary_has_each_term_once_in_every_language() -> None:
    ids = {lang: [term.id for term in glossary(lang)] for lang in LANGS}
    assert all(len(set(found)) == len(found) for found in ids.values())
    assert all(found == ids["en"] for found in ids.values()), "the same terms, in the same order"
    for lang in LANGS:
        terms = glossary(lang)
        for term in terms:
            assert catalog(lang)[f"glossary.{term.id}.word"] == term.word
            # a preferred word is never another term's replaced variant, and a quote quotes a variant
            assert [other.id for other in terms if other.variants_in(term.word)] == [], term.id
            assert all(any(v in phrase for v in term.replaces) for phrase in term.quoted), term.id


@pytest.mark.parametrize(("lang", "text", "expected"), [
    ("zh", "投机解码如何工作", ["投机"]),
    ("zh", "每秒词元数", ["词元"]),
    ("zh", "α（即文章里的接受率 β）", []),  # quoted on purpose
    ("zh", "α 就是 β", ["β"]),
    ("en", "the Gemma 4 assistant drafts", ["Gemma 4 assistant"]),
    ("en", "google/gemma-4-31B-it-assistant config", []),  # a checkpoint's name, not the word
    ("en", "the article's β is our α", []),
    ("en", "✓\u00a0kept  ✗\u00a0refused  ⌫\u00a0dropped", ["✓ kept", "✗ refused", "⌫ dropped"]),  # verdicts' labels
    ("en", "the rounds so far are kept", []),  # the verb, not a verdict's label
    ("zh", "✓\u00a0保留", ["✓ 保留"]),
    ("zh", "推理时它就成了内置的草稿模型", ["内置的草稿模型"]),
    ("zh", "Gemma 4 附带一个独立的草稿模型", []),
])
def test_a_replaced_variant_is_found_and_a_quoted_one_is_not(lang: str, text: str, expected: list[str]) -> None:
    assert [v for term in glossary(lang) for v in term.variants_in(text)] == expected


def test_a_planted_variant_is_named_with_its_file_key_and_word(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "planted.zh.toml").write_text('[planted]\nline = "投机解码的奖励 token"\n', encoding="utf-8")
    monkeypatch.setattr(f"{__name__}.SOURCES", tmp_path)
    where = "specview/texts/planted.zh.toml key planted.line"
    assert catalog_drifts("zh") == [
        f"{where}: '投机' → use '推测解码' (glossary term 'speculative_decoding')",
        f"{where}: '奖励' → use '额外 token' (glossary term 'bonus')",
    ]
