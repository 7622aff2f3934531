"""The fleet screen's `/` filter: a regular expression over instance, engine and method, in bounded time.

Python's `re` cannot be stopped once it runs, and a pattern such as `(a|aa)*b` takes exponential
time. So a pattern is refused unless its matching time is bounded by its shape: at most
MAX_PATTERN characters, at most MAX_REPEATS repetitions, and each repetition of one character or
one class (no repeated group, alternation or back-reference). Every field is cut to FIELD_CHARS
before it is matched, and each (field, pattern) pair is matched once (rows come back every poll).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from specview.compat.stdlib_compat import parse_regex
from specview.compat.stdlib_compat import regex_opcodes as sre  # the only way to see a pattern's shape
from specview.kernel.errors import SpecviewError

MAX_PATTERN = 100  # characters of a filter
MAX_REPEATS = 2  # repetitions (*, +, ?, {m,n}) in a filter: time grows as the field length to this power + 1
FIELD_CHARS = 96  # of each field, as matched
CACHE = 4096  # (field, pattern) answers kept
SINGLE = {sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN, sre.CATEGORY}
REPEATS = {sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT}


class FilterError(SpecviewError):
    """A filter that is not a regular expression, or one whose matching time would not be bounded;
    the message (`fleetscreen.filter.<reason>`) says which and why."""

    def __init__(self, key: str, at: str = "") -> None:
        """`key`: fleetscreen.filter.<reason>; `at`: where an invalid pattern broke (a character position)."""
        super().__init__(key, at=at)


def _check(items: Iterable[tuple[Any, Any]], repeats: list[int], inside_repeat: bool) -> None:
    for op, arg in items:
        if op in REPEATS:
            repeats[0] += 1
            _lo, _hi, body = arg
            if inside_repeat or len(body) != 1 or body[0][0] not in SINGLE:
                raise FilterError("fleetscreen.filter.nested")
        elif op == sre.SUBPATTERN:
            _check(arg[-1], repeats, inside_repeat)
        elif op == sre.BRANCH:
            for branch in arg[1]:
                _check(branch, repeats, inside_repeat)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            _check(arg[1], repeats, inside_repeat)
        elif op in (sre.GROUPREF, sre.GROUPREF_EXISTS, sre.ATOMIC_GROUP):
            raise FilterError("fleetscreen.filter.nested")
    if repeats[0] > MAX_REPEATS:
        raise FilterError("fleetscreen.filter.repeats")


def compile_filter(pattern: str) -> re.Pattern[str]:
    """The filter as a compiled pattern (case-insensitive), or FilterError."""
    if len(pattern) > MAX_PATTERN:
        raise FilterError("fleetscreen.filter.long")
    try:
        parsed = parse_regex(pattern, re.IGNORECASE)
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error as exc:  # where it broke (Python's reason is English; the screen says it in words)
        raise FilterError("fleetscreen.filter.invalid", str(exc.pos if exc.pos is not None else 0)) from None
    except (OverflowError, RecursionError):
        raise FilterError("fleetscreen.filter.invalid", "0") from None
    _check(parsed, [0], inside_repeat=False)
    return compiled


@dataclass
class FleetFilter:
    """One pattern, and what it said about the fields seen so far."""

    pattern: str = ""
    _compiled: re.Pattern[str] | None = None
    _seen: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def of(cls, pattern: str) -> FleetFilter:
        return cls(pattern, compile_filter(pattern) if pattern else None)

    def matches(self, *fields: str) -> bool:
        """Whether any of the fields matches (an empty filter matches everything)."""
        if self._compiled is None:
            return True
        return any(self._field(f[:FIELD_CHARS]) for f in fields)

    def _field(self, value: str) -> bool:
        known = self._seen.get(value)
        if known is None:
            if len(self._seen) >= CACHE:
                self._seen.clear()
            assert self._compiled is not None
            known = self._seen[value] = self._compiled.search(value) is not None
        return known
