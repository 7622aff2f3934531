"""`specview watch`: the monitor on its own (no run of ours)."""

from __future__ import annotations

from collections.abc import Mapping

from textual.screen import Screen

from specview.features.watch.screen import WatchScreen
from specview.features.watch.source import ServerWatch
from specview.features.watch.source.plain_feed import PlainFeed
from specview.tui.app import BaseApp
from specview.tui.pump import Throttle


class WatchApp(BaseApp):
    """One WatchScreen; the app-wide keys (q quits, F1 help) as everywhere."""

    def __init__(self, source: ServerWatch, interval: float = 1.0, theme_name: str | None = None,
                 lang: str = "en", problems: tuple[str, ...] = (), keymap: Mapping[str, str] | None = None,
                 throttle: Throttle | None = None, plain: PlainFeed | None = None) -> None:
        super().__init__(theme_name, lang, problems, keymap, throttle)
        self.source, self.interval, self.plain = source, interval, plain

    def get_default_screen(self) -> Screen[None]:
        return WatchScreen(self.source, self.interval, self.lang, self.throttle, self.plain)
