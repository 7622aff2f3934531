"""One glossary (texts/glossary.<lang>.toml) for every text: no catalog text, Learn screen source or
line of the documentation (README.md, docs/**/*.md) uses a variant the glossary replaces (except inside a
phrase it names as quoted)."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from specview.catalog.glossary import Term, glossary
from specview.kernel.langs import LANGS
from specview.texts.catalog import catalog
from tests.support.docs_pages import pages

ROOT = Path(__file__).resolve().parents[3]
TEXTS = ROOT / "specview" / "texts"
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
    for path in sorted(TEXTS.glob(f"*.{lang}.toml")):
        if path.name.startswith("glossary."):
            continue
        for key, value in _texts(tomllib.loads(path.read_text(encoding="utf-8"))):
            out += drifts(glossary(lang), f"specview/texts/{path.name} key {key}", value)
    return out


def every_term() -> tuple[Term, ...]:
    """Each term with both languages' words, variants and quotes: for texts that mix them (README.md, sources)."""
    by_lang = [glossary(lang) for lang in LANGS]
    return tuple(Term(same[0].id, " / ".join(t.word for t in same), "",
                      tuple(v for t in same for v in t.replaces), tuple(q for t in same for q in t.quoted))
                 for same in zip(*by_lang, strict=True))


def test_the_catalog_texts_use_the_glossarys_words() -> None:
    """Every texts/*.zh.toml and *.en.toml: Learn screens, help, keys, notes, errors."""
    assert [line for lang in LANGS for line in catalog_drifts(lang)] == []


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
])
def test_a_replaced_variant_is_found_and_a_quoted_one_is_not(lang: str, text: str, expected: list[str]) -> None:
    assert [v for term in glossary(lang) for v in term.variants_in(text)] == expected


def test_a_planted_variant_is_named_with_its_file_key_and_word(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "planted.zh.toml").write_text('[planted]\nline = "投机解码的奖励 token"\n', encoding="utf-8")
    monkeypatch.setattr(f"{__name__}.TEXTS", tmp_path)
    where = "specview/texts/planted.zh.toml key planted.line"
    assert catalog_drifts("zh") == [
        f"{where}: '投机' → use '推测解码' (glossary term 'speculative_decoding')",
        f"{where}: '奖励' → use '额外 token' (glossary term 'bonus')",
    ]
