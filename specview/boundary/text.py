"""THE boundary for untrusted text: everything from outside passes `sanitize` before it is shown.

Token text, model ids, server errors, recording headers, config values, preset labels, GGUF
metadata, environment values: before any widget, notification, title, log line or stderr
message sees them, `sanitize` masks secrets, makes control and invisible characters visible and
bounds the length with a visible mark. What it returns is as wide on a terminal as Rich counts
it, character by character (boundary/invisible.py says where they disagreed), so every widget that
lays text out in Rich's cell widths lines up. It never escapes Rich/Textual markup: its result is
plain text, meant for `Text`/`Content` objects or `markup=False` (a test walks the UI code for that).
"""

from __future__ import annotations

import re
import reprlib
import unicodedata

from specview.boundary.invisible import UNSAFE as _UNSAFE
from specview.boundary.invisible import UNSAFE_OR_NEWLINE as _UNSAFE_OR_NEWLINE
from specview.boundary.invisible import unassigned
from specview.boundary.secrets import mask

REPLACEMENT = "\ufffd"


def _visible(match: re.Match[str]) -> str:
    ch = match.group(0)
    code = ord(ch)
    if ch == "\t":
        return "    "
    if code < 0x20:
        return chr(0x2400 + code)  # ␛ for ESC, ␇ for BEL, ␊ for a newline on one line, …
    if code == 0x7F:
        return "␡"
    return REPLACEMENT


def truncation_mark(cut: int) -> str:
    """What ends a text cut short: how many characters are not shown."""
    return f"…[+{cut}]"


def sanitize(text: str, limit: int | None = None, *, one_line: bool = False) -> str:
    """`text` safe to show: secrets masked, controls and invisible characters visible, at most
    about `limit` characters.

    Masking comes first, so truncating can never leave part of a secret; a text longer than
    `limit` keeps its first `limit` characters and ends with a mark saying how much was cut.
    Newlines stay unless `one_line` (then they show as ␊).
    """
    text = mask(text)
    pattern = _UNSAFE_OR_NEWLINE if one_line else _UNSAFE
    if pattern.search(text) is not None:
        text = pattern.sub(_visible, text)
    if unassigned(text):
        text = "".join(REPLACEMENT if unicodedata.category(ch) == "Cn" else ch for ch in text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + truncation_mark(len(text) - limit)
    return text


def is_safe(text: str) -> bool:
    """True when `sanitize` would leave `text` as it is (no controls, no secrets; any length)."""
    return _UNSAFE.search(text) is None and not unassigned(text) and mask(text) == text


def _short_repr() -> reprlib.Repr:
    short = reprlib.Repr()
    short.maxstring, short.maxother, short.maxlong = 60, 60, 40
    short.maxlist = short.maxtuple = short.maxdict = short.maxset = 4
    short.maxlevel = 2
    return short


_SHORT = _short_repr()


def shown(value: object, limit: int = 80) -> str:
    """A value from outside, quoted for an error message: a short repr (a 10 MB string or a
    list of millions costs no more than a few items), sanitised, on one line."""
    try:
        text = _SHORT.repr(value)
    except ValueError:  # an int beyond Python's 4300-digit conversion limit
        text = "<a number too long to show>"
    return sanitize(text, limit, one_line=True)


def number(value: float | None, fmt: str = "") -> str:
    """`value` formatted with `fmt`, or an em dash when there is none yet."""
    return "—" if value is None else format(value, fmt)
