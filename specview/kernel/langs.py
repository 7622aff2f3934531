"""The languages specview speaks: one list for the command line, the config, the simulator's
passages and the message catalogs (a test checks that every one has a catalog)."""

from __future__ import annotations

LANGS = ("en", "zh")
DEFAULT_LANG = "en"


def detect_lang(prompt: str | None) -> str:
    """zh when the prompt contains CJK characters, else en."""
    if prompt and any("\u4e00" <= ch <= "\u9fff" for ch in prompt):
        return "zh"
    return DEFAULT_LANG
