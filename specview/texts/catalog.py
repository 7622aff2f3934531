"""Message catalogs (zh, en): every text a user reads, keyed by id.

A language's catalog is every `texts/<area>.<lang>.toml` file merged (ui, gauges, keys, learn, …),
so each area keeps its own file; a key must be unique across the files of one language. Tables
flatten to dotted ids: `[gauge] alpha = { label = "…" }` is the text `gauge.alpha.label`.
An array is data beside the texts, not a text (the glossary's replaced variants: catalog/glossary.py).
The languages are the ones that have files (kernel/langs.py lists the same; a test checks it).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache, lru_cache
from importlib import resources
from string import Formatter
from typing import Any

FALLBACK = "en"


@cache
def languages() -> tuple[str, ...]:
    """Every language with at least one catalog file."""
    folder = resources.files("specview") / "texts"
    found = {entry.name.split(".")[-2] for entry in folder.iterdir() if entry.name.count(".") == 2
             and entry.name.endswith(".toml")}
    return tuple(sorted(found))


def _flatten(data: dict[str, Any], prefix: str, into: dict[str, str], where: str) -> None:
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            _flatten(value, f"{name}.", into, where)
            continue
        if isinstance(value, list):
            continue
        if name in into:
            raise KeyError(f"catalog key {name!r} is defined twice ({where})")
        into[name] = str(value)


@cache
def catalog(lang: str) -> dict[str, str]:
    """All texts of one language; unknown languages fall back to English."""
    lang = lang if lang in languages() else FALLBACK
    merged: dict[str, str] = {}
    folder = resources.files("specview") / "texts"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(f".{lang}.toml"):
            _flatten(tomllib.loads(entry.read_text(encoding="utf-8")), "", merged, entry.name)
    return merged


@cache
def area(name: str, lang: str) -> dict[str, str]:
    """One area file's texts alone (texts/<name>.<lang>.toml; none if it is missing), for a reader in a
    hurry that needs only its own: `specview --help` reads cli_help (about 2 ms), not every file (about 22)."""
    entry = resources.files("specview") / "texts" / f"{name}.{lang}.toml"
    found: dict[str, str] = {}
    if entry.is_file():
        _flatten(tomllib.loads(entry.read_text(encoding="utf-8")), "", found, entry.name)
    return found


def text(key: str, lang: str = FALLBACK) -> str:
    """One text by id; a missing key falls back to English, then to the key itself."""
    return catalog(lang).get(key) or catalog(FALLBACK).get(key, key)


class _Blanks(dict[str, object]):
    def __missing__(self, name: str) -> str:
        return "?"


_FORMATTER = Formatter()


class Phrase:
    """A text not yet in a language: a catalog id and its fields, rendered where it is shown.

    Errors and notes made below the UI carry these, so the words are chosen in the user's
    language at the place that knows it; a field that is itself a Phrase is rendered in the same
    language.
    """

    __slots__ = ("fields", "key")

    def __init__(self, key: str, /, **fields: object) -> None:
        self.key = key
        self.fields = fields

    def render(self, lang: str = FALLBACK) -> str:
        """The text in `lang`; a key no catalog knows is shown as written (a plain text)."""
        if self.key not in catalog(FALLBACK) and self.key not in catalog(lang):
            return self.key
        return fill(self.key, lang, **self.fields)

    def __str__(self) -> str:
        return self.render(FALLBACK)

    def __repr__(self) -> str:
        return f"Phrase({self.key!r}, **{self.fields!r})"


def _renders(value: object) -> bool:
    """Whether a field's value is words still to be put in a language (a Phrase, an error)."""
    return isinstance(value, Phrase) or callable(getattr(value, "in_language", None))


def _rendered(value: object, lang: str) -> object:
    """A field's value as shown in `lang`: a Phrase, or an error that renders itself (a SpecviewError:
    the catalog imports nothing of specview, so it asks for the method), in that language."""
    if isinstance(value, Phrase):
        return value.render(lang)
    in_language = getattr(value, "in_language", None)
    if callable(in_language):
        return in_language(lang)
    return value


def fill(key: str, lang: str = FALLBACK, /, **values: object) -> str:
    """A text with `{name}` fields filled in; values are data the caller made safe to show.

    Every template a user reads is filled here, so a translator's slip never crashes a view: a
    field not given, one whose format does not fit its value (`{alpha:.2f}` given text) or one
    that is not a plain name (`{alpha.real}`, `{0}`) reads "?"; a template whose braces do not
    parse is shown as written.
    """
    return _filled(text(key, lang), _in_language(values, lang))


def fill_in(template: str, lang: str = FALLBACK, /, **values: object) -> str:
    """`fill` for a template already in hand (one read with `area`)."""
    return _filled(template, _in_language(values, lang))


def _in_language(values: dict[str, object], lang: str) -> dict[str, object]:
    """The fields as shown in `lang`: a copy only where a field renders itself (a Phrase, an error)."""
    if any(_renders(value) for value in values.values()):
        return {name: _rendered(value, lang) for name, value in values.items()}
    return values


@lru_cache(maxsize=4096)  # the catalogs' templates, parsed once (the side panel fills notes every frame)
def _parsed(template: str) -> tuple[tuple[str, str | None, str | None, str | None], ...] | None:
    try:
        return tuple(_FORMATTER.parse(template))
    except ValueError:  # an unbalanced brace
        return None


def _filled(template: str, values: Mapping[str, object]) -> str:
    """`template` with its fields filled from `values` (see `fill`)."""
    parts = _parsed(template)
    if parts is None:
        return template
    blanks = _Blanks(values)
    out = []
    for literal, name, spec, conversion in parts:
        out.append(literal)
        if name is None:
            continue
        if not name.isidentifier():  # plain names only: a template never reaches into a value's attributes
            out.append("?")
            continue
        try:
            value = _FORMATTER.convert_field(blanks[name], conversion)
            out.append(format(value, _filled(spec, values) if spec else ""))
        except (ValueError, TypeError):  # an unknown conversion, a format that does not fit the value
            out.append("?")
    return "".join(out)
