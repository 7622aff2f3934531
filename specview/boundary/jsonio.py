"""JSON in from outside (strict, bounded) and JSON out (valid, masked, safe to print on a terminal).

Python's `json` accepts `NaN` and `Infinity`, raises RecursionError on deeply nested arrays and
a bare ValueError on a 5000-digit integer; `loads` turns all of those into one `JsonError`
with a short reason. `dumps` writes what `--json`, recordings and logs print: no NaN (null
instead), secrets masked, and every character a terminal might obey or hide (C1 controls,
bidi and invisible characters, lone surrogates) written as a `\\uXXXX` escape, so the value is
kept exactly and `cat`-ing the output is harmless. A tree that is both shown and written (a
recording's header, also read by the Markdown report) is masked once by `masked`, with the secrets
of that output beside the registered ones, and `dumps` then writes it without masking it again.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

from specview.boundary.secrets import MASK, SecretPattern, known_secrets, pattern_for


class JsonError(ValueError):
    """Text that is not JSON we accept; the message is a short reason."""


def _no_constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number")


def loads(text: str | bytes) -> Any:
    """Decode JSON, refusing NaN/Infinity; every failure is a JsonError."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except JsonError:
        raise
    except json.JSONDecodeError as exc:
        raise JsonError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise JsonError("not valid JSON we accept (nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer longer than Python's conversion limit
        raise JsonError(f"not valid JSON we accept ({exc})") from None


# Characters JSON may leave raw that a terminal could obey or hide: DEL and C1, bidi and
# invisible format characters, line/paragraph separators, lone surrogates, tag characters.
_ESCAPE = re.compile(
    "[\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _clean(value: Any, pattern: SecretPattern | None) -> Any:
    # the one walk over a tree that goes out: every string and key masked (when `pattern` finds
    # anything), NaN and infinities nulled
    if isinstance(value, str):
        return value if pattern is None else pattern.sub(MASK, value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        if pattern is None:
            return {k: _clean(v, None) for k, v in value.items()}
        return {pattern.sub(MASK, str(k)): _clean(v, pattern) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v, pattern) for v in value]
    return value


class Masked(dict[str, Any]):
    """A JSON object `masked` has masked. It remembers the registered secrets it was masked
    against, so `dumps` writes it without masking it a second time, unless a secret has been
    registered since (then it is masked again, and still nothing known gets out)."""

    against: frozenset[str] = frozenset()


def masked(value: dict[str, Any], also: Iterable[str] = ()) -> Masked:
    """`value` with every registered secret and each of `also` masked in every string and key,
    at any depth (for a tree that is shown as well as written, like a recording's header)."""
    against = known_secrets()  # read first: a secret registered meanwhile makes `dumps` mask again
    out = Masked(_clean(value, pattern_for(also)))
    out.against = against
    return out


def dumps(value: Any, *, indent: int | None = None, separators: tuple[str, str] | None = None) -> str:
    """JSON text for output (see the module docstring); non-ASCII text stays readable."""
    done = isinstance(value, Masked) and value.against is known_secrets()
    pattern = None if done else pattern_for()
    if pattern is not None:
        value = _clean(value, pattern)
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=indent, separators=separators)
    except ValueError:  # a NaN or infinity somewhere: null it
        text = json.dumps(_clean(value, None), ensure_ascii=False, allow_nan=False, indent=indent,
                          separators=separators)
    return _ESCAPE.sub(_escape, text) if _ESCAPE.search(text) else text
