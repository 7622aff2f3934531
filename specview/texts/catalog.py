"""Message catalogs (zh, en): every text a user reads, keyed by id.

A language's catalog is every `texts/<area>.<lang>.toml` file merged (ui, gauges, keys, learn, …),
so each area keeps its own file; a key must be unique across the files of one language. Tables
flatten to dotted ids: `[gauge] alpha = { label = "…" }` is the text `gauge.alpha.label`.
The languages are the ones that have files (core/langs.py lists the same; a test checks it).
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
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


def text(key: str, lang: str = FALLBACK) -> str:
    """One text by id; a missing key falls back to English, then to the key itself."""
    return catalog(lang).get(key) or catalog(FALLBACK).get(key, key)


class _Blanks(dict[str, object]):
    def __missing__(self, name: str) -> str:
        return "?"


def fill(key: str, lang: str = FALLBACK, **values: object) -> str:
    """A text with `{name}` fields filled in ("?" for a value not given; values are data the
    caller made safe to show)."""
    return text(key, lang).format_map(_Blanks(values))
