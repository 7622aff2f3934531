"""The glossary (`texts/glossary.<lang>.toml`): each term once per language, with the word every text
uses, what it means (a Learn screen's help lists it), the drifting variants it replaces and the
phrases that quote a replaced variant on purpose.

The words and meanings are catalog texts (`glossary.<term>.word`, `.means`); the variants are arrays,
which the catalog leaves out, so they are read here. tests/unit/catalog/test_glossary.py holds every text to it.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from specview.texts.catalog import FALLBACK, languages

_LATIN = re.compile(r"[A-Za-z]")


@dataclass(frozen=True, slots=True)
class Term:
    """One term in one language."""

    id: str
    word: str
    means: str
    replaces: tuple[str, ...] = ()
    quoted: tuple[str, ...] = ()
    paired: bool = False  # a text says the word in every language or in none (草稿模型 only where "draft model")

    def variants_in(self, text: str) -> list[str]:
        """The replaced variants `text` uses, outside the phrases that quote one on purpose.

        A Latin variant is a whole word, any case ("assistant model" is not in "…-assistant models");
        any other (Chinese) is found anywhere. A no-break space counts as a space ("✓\u00a0kept")."""
        text = text.replace("\u00a0", " ")
        for phrase in self.quoted:
            text = text.replace(phrase, " ")
        found = []
        for variant in self.replaces:
            if _LATIN.search(variant):
                pattern = rf"(?<![A-Za-z\-]){re.escape(variant)}(?![A-Za-z\-])"
                hit = re.search(pattern, text, re.IGNORECASE) is not None
            else:
                hit = variant in text
            if hit:
                found.append(variant)
        return found

    def used_in(self, text: str) -> bool:
        """Whether `text` says this term's word: a Latin word whole, in any case, plural included."""
        if _LATIN.search(self.word):
            pattern = rf"(?<![A-Za-z\-]){re.escape(self.word)}s?(?![A-Za-z\-])"
            return re.search(pattern, text.replace("\u00a0", " "), re.IGNORECASE) is not None
        return self.word in text


@cache
def glossary(lang: str) -> tuple[Term, ...]:
    """Every term of `lang`'s glossary, in the file's order (unknown languages: English)."""
    lang = lang if lang in languages() else FALLBACK
    source = resources.files("specview") / "texts" / f"glossary.{lang}.toml"
    table = tomllib.loads(source.read_text(encoding="utf-8"))["glossary"]
    return tuple(Term(term_id, entry["word"], entry["means"], tuple(entry.get("replaces", ())),
                      tuple(entry.get("quoted", ())), bool(entry.get("paired", False)))
                 for term_id, entry in table.items())
