"""Failures the user should see: one way to show them, one way to catch them around an action."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from specview.core.errors import SpecviewError
from specview.core.text import sanitize

if TYPE_CHECKING:
    from textual.app import App
    from textual.widget import Widget

    Notifier = Widget | App[Any]

ERROR_SECONDS = 30


def notify_error(node: Notifier, message: str, title: str = "") -> None:
    """An error notification; the message may come from outside (a server, a file), so it is
    made safe and never read as markup."""
    node.notify(sanitize(message), title=sanitize(title), severity="error", timeout=ERROR_SECONDS,
                markup=False)


@contextmanager
def user_action(node: Notifier, title: str = "") -> Iterator[None]:
    """Around anything a key or a command starts (switch preset, theme, run): a SpecviewError
    becomes a notification and the app keeps running where it was."""
    try:
        yield
    except SpecviewError as exc:
        notify_error(node, str(exc), title)
