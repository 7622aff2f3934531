"""What an app's notifications say now: Textual has no public read of them, so they are read through
specview/compat/textual_compat.py (whose test fails, naming the name, when a Textual release moves it)."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.notifications import Notification

from specview.compat.textual_compat import shown_notifications


def notices(app: App[Any]) -> list[Notification]:
    """The notifications `app` shows now, oldest first (one whose time is up is gone)."""
    return shown_notifications(app)
