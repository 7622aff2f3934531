"""Message catalogs (zh, en): every text a user reads, keyed by id."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources

LANGS = ("en", "zh")


@cache
def catalog(lang: str) -> dict[str, str]:
    """All texts of one language; unknown languages fall back to English."""
    name = f"ui.{lang if lang in LANGS else 'en'}.toml"
    data = tomllib.loads((resources.files("specview") / "texts" / name).read_text(encoding="utf-8"))
    return {k: str(v) for k, v in data.items()}


def text(key: str, lang: str = "en") -> str:
    """One text by id; a missing key falls back to English, then to the key itself."""
    return catalog(lang).get(key) or catalog("en").get(key, key)
