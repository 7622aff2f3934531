"""A lower-level failure quoted in an error: in the user's language where it carries its words.

The parsers below a backend raise plain ValueErrors (Invalid, EventTooLarge, Damaged, …); those
raised here carry a `Phrase` as their one argument (`str(exc)` is its English), so the error that
quotes them can render them in the language it is shown in. Others are quoted as they read.
"""

from __future__ import annotations

from specview.texts.catalog import Phrase


def reason_of(exc: BaseException) -> object:
    """What to put in an error's field for `exc`: its Phrase, a SpecviewError itself, else its text."""
    if len(exc.args) == 1 and isinstance(exc.args[0], Phrase):
        return exc.args[0]
    if callable(getattr(exc, "in_language", None)):
        return exc
    return str(exc)


def role_word(role: str) -> object:
    """A model's role ("target", "draft") as an error names it, in the language it is shown in."""
    return Phrase(f"backenderr.role.{role}") if role in ("target", "draft") else role
