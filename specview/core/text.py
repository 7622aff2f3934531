"""Model output is untrusted: make it safe to put on a terminal."""

from __future__ import annotations

import re

# C0 controls except newline, DEL, C1 controls, and bidi overrides/isolates.
_UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    ch = match.group(0)
    code = ord(ch)
    if ch == "\t":
        return "    "
    if code < 0x20:
        return chr(0x2400 + code)  # ␛ for ESC, ␇ for BEL, …
    if code == 0x7F:
        return "␡"
    return "\ufffd"


def sanitize(text: str) -> str:
    """Replace every control character (except newline) by a visible symbol."""
    return _UNSAFE.sub(_visible, text)


def number(value: float | None, fmt: str = "") -> str:
    """`value` formatted with `fmt`, or an em dash when there is none yet."""
    return "—" if value is None else format(value, fmt)
