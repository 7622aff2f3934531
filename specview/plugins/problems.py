"""Where the plugin surface says what it left out: one line per problem, once.

Until someone listens (the app, while it owns the terminal), a problem is written to stderr as
`specview: <line>` in `language()` (the command line sets that to its error line's language);
a listener gets the Phrase instead and shows it its own way (a notification).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from specview.texts.catalog import FALLBACK, Phrase

Listener = Callable[[Phrase], None]

_said: list[Phrase] = []
_seen: set[str] = set()
_listener: list[Listener] = []
_language: list[Callable[[], str]] = [lambda: FALLBACK]


def report(problem: Phrase) -> None:
    """Say `problem` once: to the listener if there is one, else on stderr."""
    key = problem.render(FALLBACK)
    if key in _seen:
        return
    _seen.add(key)
    _said.append(problem)
    if _listener:
        _listener[-1](problem)
        return
    sys.stderr.write(f"specview: {problem.render(_language[-1]())}\n")
    sys.stderr.flush()


def was_said(problem: Phrase) -> bool:
    """Whether `problem` (the same line) was said already."""
    return problem.render(FALLBACK) in _seen


def said() -> tuple[Phrase, ...]:
    """Every problem said so far, in order."""
    return tuple(_said)


def listen(listener: Listener | None) -> None:
    """Send the next problems to `listener` (None: back to stderr)."""
    _listener.clear()
    if listener is not None:
        _listener.append(listener)


def set_language(language: Callable[[], str]) -> None:
    """How to find the language of a line on stderr (asked only when there is one to write)."""
    _language[:] = [language]
