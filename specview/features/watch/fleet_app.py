"""`specview watch` over a fleet (several --url targets, or --prometheus): the fleet screen."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rich.console import RenderableType
from textual.screen import Screen

from specview.features.watch.model.fleet import FleetSource
from specview.features.watch.screen.fleet import FleetScreen, Fold, OpenServer
from specview.tui.app import BaseApp
from specview.tui.pump import Throttle


class FleetApp(BaseApp):
    """One FleetScreen; the app-wide keys (q quits, F1 help) as everywhere.

    `fold` turns one poll's readings into a snapshot (the fleet model's). `open_server` makes the
    single-server watch of an instance that is a server we reach directly (None for one we do
    not, e.g. a Prometheus instance, whose `enter` shows its readings instead); without it every
    instance opens on its readings. `quitting` is called as soon as the app is asked to exit (`q`,
    Ctrl-C, SIGTERM, SIGHUP), before the terminal is given back: `--on-alert`'s runs are told to
    stop then, so even a second Ctrl-C, which ends the process at once, finds them told."""

    def __init__(self, source: FleetSource, fold: Fold, interval: float, theme_name: str | None = None,
                 lang: str = "en", problems: tuple[str, ...] = (), keymap: Mapping[str, str] | None = None,
                 throttle: Throttle | None = None, open_server: OpenServer | None = None,
                 quitting: Callable[[], None] | None = None) -> None:
        super().__init__(theme_name, lang, problems, keymap, throttle)
        self.source, self.fold, self.interval, self.open_server = source, fold, interval, open_server
        self.quitting = quitting

    def exit(self, result: None = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        if self.quitting is not None:
            self.quitting()
        super().exit(result, return_code, message)

    def get_default_screen(self) -> Screen[None]:
        return FleetScreen(self.source, self.fold, self.interval, self.lang, self.throttle, self.open_server)
