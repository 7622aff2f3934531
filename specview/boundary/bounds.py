"""Bounds on everything counted from outside, and the checks every parser of untrusted input uses.

A count from a server or a file is checked against these before anything is allocated from
it: a round with `drafted: 10000000` or a `/metrics` position of 30 million is an error
naming the field, never a ten-million-element list. The checks raise `Invalid` (a
ValueError) naming the field; each parser turns it into its own SpecviewError with the file
and line, or the server and what it was answering.
"""

from __future__ import annotations

import math
from typing import Any

from specview.boundary.text import shown

MAX_NOTES = 16  # notes about one run (a recording's header, a sweep file)
MAX_NOTE_VALUES = 8  # values one note fills in

MAX_ROUND_DRAFTS = 1024  # γ of one round (EAGLE trees draft ~60; no engine drafts thousands)
MAX_ROUND_TOKENS = MAX_ROUND_DRAFTS + 2  # accepted…, rejected, corrected | bonus
MAX_POSITION = MAX_ROUND_DRAFTS  # a draft position (also a /metrics `position` label)
MAX_CHUNK_TOKENS = 4096  # tokens one stream chunk may add (a counter jump beyond is refused)
MAX_COUNTER = 2**53  # cumulative counters (draft_n, predicted_n, usage): exact in a double
MAX_CONTEXT_TOKENS = 2**24  # a prompt's length in tokens (16M: beyond any model's context window)
MAX_TOKEN_ID = 2**31 - 1
MAX_SECONDS = 1e12  # any time stamp or duration (finite, and far beyond any real run)
MAX_TOKEN_SHOWN = 2000  # characters of one token the stream shows (the rest is cut with a mark)
MAX_SHOWN = 2000  # characters of one message, label or note on screen or stderr
MAX_EVENT_BYTES = 8 * 2**20  # one server-sent event
MAX_BODY_BYTES = 8 * 2**20  # one JSON or text answer (/v1/models, /props, /metrics, an error body)
MAX_LINE_BYTES = 16 * 2**20  # one recording line
MAX_MODELS = 10_000  # entries of /v1/models that are read
MAX_SLOTS = 4096  # entries of llama-server's /slots (one per parallel slot)
MAX_HELD_ROUNDS = 2**16  # rounds of a request in progress that a reconcile may still replace (older ones stand)
MAX_CHUNK_TEXT = 2**20  # characters of one stream chunk's text kept (the rest counted and said)
MAX_REQUEST_TEXT = 4 * 2**20  # characters of token text one request keeps (the rest counted and said)


class Invalid(ValueError):
    """A value of the wrong type or out of range; the message names the field."""


def integer(value: Any, field: str, low: int, high: int) -> int:
    """`value` when it is an integer in [low, high] (not a bool, not a float)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(f"{field} must be an integer, got {shown(value)}")
    if not low <= value <= high:
        raise Invalid(f"{field} is {shown(value)}, expected {low}..{high}")
    return value


def optional_integer(value: Any, field: str, low: int, high: int) -> int | None:
    """None, or an integer in [low, high]."""
    return None if value is None else integer(value, field, low, high)


def real(value: Any, field: str, low: float = -MAX_SECONDS, high: float = MAX_SECONDS) -> float:
    """`value` as a float when it is a finite number in [low, high] (ints count, bools do not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Invalid(f"{field} must be a number, got {shown(value)}")
    number = float(value)
    if not math.isfinite(number):
        raise Invalid(f"{field} must be a finite number, got {shown(value)}")
    if not low <= number <= high:
        raise Invalid(f"{field} is {shown(value)}, expected {low:g}..{high:g}")
    return number


def optional_real(value: Any, field: str, low: float = -MAX_SECONDS, high: float = MAX_SECONDS) -> float | None:
    """None, or a finite number in [low, high]."""
    return None if value is None else real(value, field, low, high)


def string(value: Any, field: str) -> str:
    """`value` when it is a string."""
    if not isinstance(value, str):
        raise Invalid(f"{field} must be a string, got {shown(value)}")
    return value


def sequence(value: Any, field: str, most: int) -> list[Any]:
    """`value` when it is a list of at most `most` items."""
    if not isinstance(value, list):
        raise Invalid(f"{field} must be a list, got {shown(value)}")
    if len(value) > most:
        raise Invalid(f"{field} has {len(value)} items, at most {most} expected")
    return value


def mapping(value: Any, field: str) -> dict[str, Any]:
    """`value` when it is an object (a dict)."""
    if not isinstance(value, dict):
        raise Invalid(f"{field} must be an object, got {shown(value)}")
    return value


def increase(before: int, after: int, field: str, most: int) -> int:
    """How much a cumulative counter grew: refused when it went back or jumped more than `most`."""
    if after < before:
        raise Invalid(f"{field} went back from {before} to {after}")
    if after - before > most:
        raise Invalid(f"{field} jumped from {before} to {after} in one step (at most {most} expected)")
    return after - before
