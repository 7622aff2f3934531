"""Notifications with text from outside: sanitised, never read as markup.

`App.notify` reads its message as Textual markup by default, so a server error holding `[/]`
would crash the app and `[link=…]` would make a link. Every notification whose text is not a
literal goes through here.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.notifications import SeverityLevel
from textual.widget import Widget

from specview.core.bounds import MAX_SHOWN
from specview.core.text import sanitize


def notify_safe(node: App[Any] | Widget, message: str, *, title: str = "", severity: SeverityLevel = "information",
                timeout: float | None = None) -> None:
    """Notify `message` as plain text (secrets masked, controls visible, length bounded)."""
    node.notify(sanitize(message, MAX_SHOWN), title=sanitize(title, 120, one_line=True), severity=severity,
                timeout=timeout, markup=False)
