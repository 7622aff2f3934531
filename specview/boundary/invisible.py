"""Characters that draw nothing, or that terminals draw in another width than Rich counts.

Two parts of the untrusted-text boundary need the same list: `sanitize` (boundary/text.py) shows them
as a visible symbol, so nothing hides in a model id or a token and every row is as wide on the
terminal as Rich lays it out; masking (boundary/secrets.py) sees through the invisible ones, so a
server that echoes a key with a zero-width joiner, a soft hyphen or a variation selector
between its characters still has it masked.

Where Rich 15 and terminals disagree (measured against tmux 3.3a / glibc 2.36, whose widths
xterm and VTE share): the Hangul fillers U+3164 and U+FFA0 (Rich 0 cells, drawn 2 and 1); a
zero-width joiner (Rich counts nothing for it *and for the character after it*: `a` ZWJ `b` is 1
cell, 2 on the terminal; emoji that it joins are one glyph on some terminals and several on
others); VS16 (Rich adds a cell to the symbol before it, most terminals do not); emoji skin-tone
modifiers (Rich 0, drawn 2 when a terminal does not merge them); unassigned code points (Rich 1
or 2, tmux 0). Shown as U+FFFD, each takes one cell everywhere, and the width of a text is the
sum of its characters' widths, as every terminal draws it.
"""

from __future__ import annotations

import re
import unicodedata

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): soft hyphen, combining
# grapheme joiner, Arabic letter mark, the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0),
# Khmer inherent vowels, Mongolian variation selectors and vowel separator, zero-width space /
# non-joiner / joiner, LRM/RLM, bidi embeddings, overrides and isolates, word joiner and
# invisible operators, variation selectors, BOM, reserved specials, shorthand format controls,
# musical formatting, tag characters and the supplementary variation selectors.
DEFAULT_IGNORABLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff"
)
# C0 controls except newline (tab included), DEL and the C1 controls (CSI 0x9b, OSC 0x9d, ...
# which some terminals obey even when UTF-8 encoded); line/paragraph separators and interlinear
# annotations break or hide text; lone surrogates cannot be written in any encoding.
CONTROLS = "\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufff9-\ufffb\ud800-\udfff"
# Visible, but of a width terminals disagree on (see the module docstring).
SKIN_TONES = "\U0001f3fb-\U0001f3ff"

# What `sanitize` replaces (newline kept unless a text must stay on one line); see `unassigned`.
UNSAFE = re.compile(f"[{CONTROLS}{DEFAULT_IGNORABLE}{SKIN_TONES}]")
UNSAFE_OR_NEWLINE = re.compile(f"[\n{CONTROLS}{DEFAULT_IGNORABLE}{SKIN_TONES}]")
# What masking skips between a secret's characters: everything invisible, newline included (a
# key spread over lines is still the key); boundary/lookalike.py skips spaces and marks too.
GAP = f"[\n{CONTROLS}{DEFAULT_IGNORABLE}]*"
_GAPS = re.compile(GAP)
INVISIBLE = re.compile(f"[\n{CONTROLS}{DEFAULT_IGNORABLE}]")  # one character that masking skips


def without_invisible(text: str) -> str:
    """`text` without the characters masking sees through."""
    return _GAPS.sub("", text)


def unassigned(text: str) -> bool:
    """True when `text` holds a code point this Python's Unicode database does not assign (its
    width is anyone's guess: Rich counts 1 or 2, tmux draws nothing)."""
    return not text.isascii() and any(unicodedata.category(ch) == "Cn" for ch in text)
