"""THE boundary for untrusted text: everything from outside passes `sanitize` before it is shown.

Token text, model ids, server errors, recording headers, config values, preset labels, GGUF
metadata, environment values: before any widget, notification, title, log line or stderr
message sees them, `sanitize` masks secrets, makes control characters visible and bounds the
length with a visible mark. It never escapes Rich/Textual markup: its result is plain text,
meant for `Text`/`Content` objects or `markup=False` (a test walks the UI code for that).
"""

from __future__ import annotations

import re
import reprlib

from specview.core.secrets import mask

# C0 controls except newline (tab is expanded), DEL and the C1 controls (CSI 0x9b, OSC 0x9d,
# ... which some terminals obey even when UTF-8 encoded); bidi marks, embeddings, overrides
# and isolates; invisible characters that hide text (zero-width space, word joiner, invisible
# operators, deprecated format characters, BOM, interlinear annotations, line/paragraph
# separators, tag characters); lone surrogates (no encoding can write them). ZWJ and ZWNJ
# (U+200C/D) stay: emoji sequences and several scripts need them.
_UNSAFE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f]"
)
_UNSAFE_OR_NEWLINE = re.compile(_UNSAFE.pattern[:-1] + "\n]")
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
    """`text` safe to show: secrets masked, controls visible, at most about `limit` characters.

    Masking comes first, so truncating can never leave part of a secret; a text longer than
    `limit` keeps its first `limit` characters and ends with a mark saying how much was cut.
    Newlines stay unless `one_line` (then they show as ␊).
    """
    text = mask(text)
    pattern = _UNSAFE_OR_NEWLINE if one_line else _UNSAFE
    if pattern.search(text) is not None:
        text = pattern.sub(_visible, text)
    if limit is not None and len(text) > limit:
        text = text[:limit] + truncation_mark(len(text) - limit)
    return text


def is_safe(text: str) -> bool:
    """True when `sanitize` would leave `text` as it is (no controls, no secrets; any length)."""
    return _UNSAFE.search(text) is None and mask(text) == text


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
