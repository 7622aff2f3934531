"""The token inspector's line: what happened to the selected token, in the chosen language."""

from __future__ import annotations

from specview.core.events import TokenEvent
from specview.core.text import sanitize
from specview.texts.catalog import fill, text

JOIN = " · "
TOKEN_CHARS = 200  # of the token's text (a token from a server may be megabytes)


def describe(token: TokenEvent, lang: str = "en") -> str:
    """One line about a token: its text, status, draft position, p, q and min(1, p/q)."""
    parts = [repr(sanitize(token.text, TOKEN_CHARS)), text(f"token.{token.status.name.lower()}", lang)]
    if token.position is not None:
        parts.append(fill("token.position", lang, n=token.position + 1))
    if token.p is not None:
        parts.append(fill("token.p", lang, p=f"{token.p:.3f}"))
    if token.q is not None:
        parts.append(fill("token.q", lang, q=f"{token.q:.3f}"))
    if token.p is not None and token.q:
        parts.append(fill("token.ratio", lang, ratio=f"{min(1.0, token.p / token.q):.3f}"))
    if token.inferred:
        parts.append(text("token.inferred", lang))
    return JOIN.join(parts)
