"""Message catalogs (zh, en): every text a user reads, keyed by id.

A language's catalog is every `texts/<area>.<lang>.toml` file merged (ui, learn, …), so each
area keeps its own file; a key must be unique across the files of one language.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources

LANGS = ("en", "zh")


@cache
def catalog(lang: str) -> dict[str, str]:
    """All texts of one language; unknown languages fall back to English."""
    lang = lang if lang in LANGS else "en"
    merged: dict[str, str] = {}
    folder = resources.files("specview") / "texts"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(f".{lang}.toml"):
            continue
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
        for key, value in data.items():
            if key in merged:
                raise KeyError(f"catalog key {key!r} is defined twice ({entry.name})")
            merged[key] = str(value)
    return merged


def text(key: str, lang: str = "en") -> str:
    """One text by id; a missing key falls back to English, then to the key itself."""
    return catalog(lang).get(key) or catalog("en").get(key, key)
