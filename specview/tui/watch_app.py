"""`specview watch`: the monitor on its own (no run of ours)."""

from __future__ import annotations

from textual.screen import Screen

from specview.backends.remote.watch_source import ServerWatch
from specview.tui.app import BaseApp
from specview.tui.watch_screen import WatchScreen


class WatchApp(BaseApp):
    """One WatchScreen; q quits."""

    def __init__(self, source: ServerWatch, interval: float = 1.0, theme_name: str | None = None,
                 lang: str = "en", problems: tuple[str, ...] = ()) -> None:
        super().__init__(theme_name, lang, problems)
        self.source, self.interval = source, interval

    def get_default_screen(self) -> Screen[None]:
        return WatchScreen(self.source, self.interval, self.lang)
