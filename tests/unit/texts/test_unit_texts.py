"""A unit's texts beside its module join the catalog (texts/catalog.py `add_texts`): once, whole or not at all."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from specview.texts import catalog as texts
from specview.texts.catalog import TextsLackLanguage, add_texts, catalog, fill


@pytest.fixture(autouse=True)
def fresh_catalog(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(texts, "_ADDED", {})
    monkeypatch.setattr(texts, "_ADDED_FROM", set())
    catalog.cache_clear()
    yield
    catalog.cache_clear()


def unit(folder: Path, stem: str, **by_lang: str) -> Path:
    folder.mkdir(exist_ok=True)
    for lang, body in by_lang.items():
        (folder / f"{stem}.{lang}.toml").write_text(body, encoding="utf-8")
    return folder


def test_a_units_texts_are_texts_in_every_language_and_joining_twice_is_once(tmp_path: Path) -> None:
    folder = unit(tmp_path / "mine", "mine", en='[mine]\nsaid = "{n} drafted"\n', zh='[mine]\nsaid = "草稿 {n} 个"\n')
    assert add_texts(folder, "mine") == "mine.en.toml"
    assert add_texts(folder, "mine") == "mine.en.toml"  # a registry read again: no "defined twice"
    assert (fill("mine.said", "en", n=3), fill("mine.said", "zh", n=3)) == ("3 drafted", "草稿 3 个")
    assert add_texts(folder, "other") is None  # a unit without texts


@pytest.mark.parametrize(("files", "error"), [
    ({"en": '[mine]\nsaid = "x"\n'}, "zh"),  # no zh file
    ({"en": '[mine]\nsaid = "x"\nmore = "y"\n', "zh": '[mine]\nsaid = "x"\n'}, "zh: mine.more"),  # an id zh lacks
    ({"en": '[gauge.alpha]\nlabel = "x"\n', "zh": '[gauge.alpha]\nlabel = "x"\n'}, "'gauge.alpha.label'"),  # taken
])
def test_texts_that_lack_a_language_or_take_an_id_join_nothing(tmp_path: Path, files: dict[str, str],
                                                               error: str) -> None:
    folder = unit(tmp_path / "bad", "bad", **files)
    with pytest.raises((TextsLackLanguage, KeyError)) as caught:
        add_texts(folder, "bad")
    assert str(caught.value) == error
    assert "mine.said" not in catalog("en") and texts._ADDED == {}
