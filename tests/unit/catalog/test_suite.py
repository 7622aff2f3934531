"""Prompt suites: the shipped one as data, a user's file read through the boundary, every bound a clear error."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest

from specview.catalog.suite import (
    KNOWN_CATEGORIES,
    MAX_PROMPT_CHARS,
    MAX_PROMPTS,
    MAX_SUITE_BYTES,
    SuiteError,
    load_suite,
    parse_suite,
)
from specview.texts.catalog import text

pytestmark = pytest.mark.unit

GOOD = 'schema = 1\nname = "mine"\nlicense = "CC0"\n[[categories]]\nid = "sql"\nprompts = ["a", "b"]\n'


def test_the_shipped_suite_has_every_category_and_states_its_licence() -> None:
    suite = load_suite(None)
    assert suite.name == "default"
    assert suite.license == "MIT"
    assert tuple(c.id for c in suite.categories) == KNOWN_CATEGORIES
    assert all(len(c.prompts) >= 3 for c in suite.categories)
    assert len(suite.prompts()) == sum(len(c.prompts) for c in suite.categories)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_known_category_has_a_name_in_each_language(lang: str) -> None:
    names = [text(f"suite.category.{c}", lang) for c in KNOWN_CATEGORIES]
    assert all(names) and len(set(names)) == len(names)


def test_a_users_toml_and_json_file_are_read(tmp_path: Path) -> None:
    toml = tmp_path / "mine.toml"
    toml.write_text(GOOD, encoding="utf-8")
    data = {"schema": 1, "name": "mine", "license": "CC0", "categories": [{"id": "sql", "prompts": ["a", "b"]}]}
    as_json = tmp_path / "mine.json"
    as_json.write_text(json.dumps(data), encoding="utf-8")
    for path in (toml, as_json):
        suite = load_suite(str(path))
        assert suite.prompts() == [("sql", "a"), ("sql", "b")]
        assert suite.source == str(path)


def _message(exc: pytest.ExceptionInfo[SuiteError], lang: str) -> str:
    return exc.value.in_language(lang)


def _refused(path: Path) -> pytest.ExceptionInfo[SuiteError]:
    with pytest.raises(SuiteError) as exc:
        load_suite(str(path))
    for lang in ("en", "zh"):
        message = _message(exc, lang)
        assert str(path) in message and "\n" not in message
    return exc


def test_a_million_prompts_is_refused_by_size_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "million.toml"
    prompts = ", ".join(['"p"'] * 1_000_000)
    path.write_text(f'schema = 1\nname = "x"\nlicense = "x"\n[[categories]]\nid = "a"\nprompts = [{prompts}]\n')
    _refused_within_the_bound(path)


def test_a_hundred_megabyte_prompt_is_refused_with_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as out:  # sparse: the disk holds the two ends, the size says 100 MB
        out.write(b'{"schema": 1, "name": "x", "license": "x", "categories": [{"id": "a", "prompts": ["')
        out.seek(100 * 2**20)
        out.write(b'"]}]}')
    assert path.stat().st_size > 100 * 2**20
    _refused_within_the_bound(path)


@pytest.mark.parametrize(("body", "suffix", "key"), [
    ('schema = 1\nname = "x"\n[[categories]\n', ".toml", "catalogerr.toml.not_toml"),
    ('{"schema": 1, "name": ', ".json", "suite.err.not_json"),
    ("[" * 100_000, ".json", "suite.err.not_json"),  # nested too deeply
    ('[1, 2]', ".json", "suite.err.not_table"),
    (GOOD.replace("schema = 1", "schema = 2"), ".toml", "suite.err.schema"),
    (GOOD.replace('license = "CC0"\n', ""), ".toml", "suite.err.line"),
    (GOOD.replace('id = "sql"', 'id = "a b"'), ".toml", "suite.err.category_id"),
    (GOOD.replace('["a", "b"]', "[]"), ".toml", "suite.err.no_prompts"),
    (GOOD.replace('["a", "b"]', '["a", 5]'), ".toml", "suite.err.prompt"),
    (GOOD + GOOD.split("\n", 3)[3], ".toml", "suite.err.duplicate"),
    (b"\xff\xfe".decode("latin-1"), ".toml", "catalogerr.toml.not_utf8"),
])
def test_a_malformed_file_is_one_line_naming_it(tmp_path: Path, body: str, suffix: str, key: str) -> None:
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(body.encode("latin-1") if key.endswith("not_utf8") else body.encode("utf-8"))
    assert _refused(path).value.phrase.key == key


def test_prompts_per_category_and_prompt_length_are_capped(tmp_path: Path) -> None:
    many = tmp_path / "many.toml"
    many.write_text(GOOD.replace('["a", "b"]', json.dumps(["p"] * (MAX_PROMPTS + 1))), encoding="utf-8")
    assert _refused(many).value.phrase.key == "suite.err.too_many_prompts"
    long = tmp_path / "long.toml"
    long.write_text(GOOD.replace('["a", "b"]', json.dumps(["x" * (MAX_PROMPT_CHARS + 1)])), encoding="utf-8")
    assert _refused(long).value.phrase.key == "suite.err.prompt"


def test_a_link_or_a_fifo_is_refused_unread(tmp_path: Path) -> None:
    real = tmp_path / "real.toml"
    real.write_text(GOOD, encoding="utf-8")
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    assert _refused(fifo).value.phrase.key == "catalogerr.toml.cannot_read"  # never opened: no blocking read
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    assert _refused(link).value.phrase.key == "catalogerr.toml.cannot_read"


def test_an_unknown_name_lists_the_shipped_ones() -> None:
    with pytest.raises(SuiteError) as exc:
        load_suite("no-such-suite")
    assert exc.value.phrase.key == "suite.err.unknown"
    assert "default" in _message(exc, "en")


def test_too_many_categories_is_refused() -> None:
    data = {"schema": 1, "name": "x", "license": "x",
            "categories": [{"id": f"c{i}", "prompts": ["p"]} for i in range(33)]}
    with pytest.raises(SuiteError) as exc:
        parse_suite(data, "where")
    assert exc.value.phrase.key == "suite.err.too_many_categories"


def test_a_selector_taken_as_the_suite_says_where_it_goes() -> None:
    with pytest.raises(SuiteError) as exc:
        load_suite("llama:/models/t.gguf+ngram")
    assert exc.value.phrase.key == "suite.err.selector"


def _refused_within_the_bound(path: Path) -> None:
    """Refused as too large, having read no further than the bound (memory traced while it reads)."""
    tracemalloc.start()
    try:
        exc = _refused(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert exc.value.phrase.key == "catalogerr.toml.too_large"
    assert peak < 4 * MAX_SUITE_BYTES
