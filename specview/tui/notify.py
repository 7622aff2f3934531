"""Notifications: the one way to show a message, with text from outside sanitised and never read as markup.

`App.notify` reads its message as Textual markup by default, so a server error holding `[/]`
would crash the app and `[link=…]` would make a link. Every notification whose text is not a
literal goes through `notify_safe`; failures a user should see go through `notify_error`, and
`user_action` turns a SpecviewError raised by a key or a command into one.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from textual.app import App
from textual.notifications import SeverityLevel
from textual.widget import Widget

from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.text import sanitize
from specview.kernel.errors import SpecviewError
from specview.texts.catalog import FALLBACK, Phrase

Notifier = Widget | App[Any]
ERROR_SECONDS = 30
TITLE_CHARS = 120


def notify_safe(node: Notifier, message: str, *, title: str = "", severity: SeverityLevel = "information",
                timeout: float | None = None) -> None:
    """Notify `message` as plain text (secrets masked, controls visible, length bounded)."""
    node.notify(sanitize(message, MAX_SHOWN), title=sanitize(title, TITLE_CHARS, one_line=True), severity=severity,
                timeout=timeout, markup=False)


def lang_of(node: Notifier) -> str:
    """The language `node` shows its texts in: its own (a screen's), else its app's."""
    lang = getattr(node, "lang", None) or getattr(node.app, "lang", None)
    return lang if isinstance(lang, str) else FALLBACK


def notify_error(node: Notifier, message: Phrase | SpecviewError | str, title: str = "") -> None:
    """An error notification that stays long enough to read, in `node`'s language (a Phrase or an
    error is put into words there); the message may come from outside."""
    if isinstance(message, SpecviewError):
        message = message.phrase
    said = message.render(lang_of(node)) if isinstance(message, Phrase) else message
    notify_safe(node, said, title=title, severity="error", timeout=ERROR_SECONDS)


@contextmanager
def user_action(node: Notifier, title: str = "") -> Iterator[None]:
    """Around anything a key or a command starts (switch preset, theme, run): a SpecviewError
    becomes a notification and the app keeps running where it was."""
    try:
        yield
    except SpecviewError as exc:
        notify_error(node, exc, title)
