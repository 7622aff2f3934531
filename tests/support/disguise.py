"""A key as a hostile server may echo it back, and whether a reader could still make it out."""

from __future__ import annotations

import json

# zero-width joiner, soft hyphen, variation selector 16, zero-width space, word joiner
JOINERS = {"zwj": "\u200d", "soft hyphen": "\u00ad", "vs16": "\ufe0f", "zwsp": "\u200b", "word joiner": "\u2060"}
_SHOWN_FOR_INVISIBLE = "\ufffd" + "".join(chr(c) for c in range(0x2400, 0x2425))  # the marks sanitize shows


def disguises(secret: str) -> dict[str, str]:
    """`secret` with each joiner between (and around) its characters, and in upper case."""
    out = {name: ch + ch.join(secret) + ch for name, ch in JOINERS.items()}
    out["upper case"] = secret.upper()
    out["upper case, zwj"] = "\u200d".join(secret.upper())
    return out


def revealed(text: str, secret: str) -> bool:
    """Whether `text` shows `secret` (or its first 8 characters) to a reader: with every invisible
    character, and the visible marks specview puts in their place, taken out, in any case."""
    from specview.boundary.invisible import without_invisible

    plain = without_invisible(text).translate({ord(c): None for c in _SHOWN_FOR_INVISIBLE}).lower()
    return secret[:8].lower() in plain


def json_revealed(lines: str, secret: str) -> bool:
    """`revealed` for JSON Lines, read back first (an escaped \\u200d is text until decoded)."""
    return any(revealed(json.dumps(json.loads(line), ensure_ascii=False), secret)
               for line in lines.splitlines() if line.strip())
