"""Textual's private names, all of them: every one specview reads, calls or overrides is here and
listed in `PRIVATE` (tests/unit/compat/test_textual_compat.py checks each against the installed Textual
and fails naming it). Callers use the functions and base classes below, which say in public terms
what they do; where Textual has a public way, specview uses it instead and it is not here.

Textual offers no public hook for "the screen drew" (`Screen._compositor_refresh`), "a widget needs
a repaint" (`Widget._set_dirty`) or "a bug ended the app" (`App._fatal_error`), no public read of a
node's bindings, the app's keymap or the notifications it shows, no one-shot timer that never skips,
no public name for the footer's key widget or for the key names a terminal sends, and no public way
to wrap the Linux driver's output file. Each fallback below keeps specview running, less well, if one goes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from typing import Any, TextIO

from textual.app import App
from textual.binding import BindingsMap, Keymap
from textual.dom import DOMNode
from textual.driver import Driver
from textual.geometry import Region
from textual.message_pump import MessagePump
from textual.notifications import Notification
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget

from specview.compat import Private

try:
    from textual.widgets._footer import FooterKey
except ImportError:  # moved: the Learn footer then shows every key, as Textual's footer does

    class FooterKey(Widget):  # type: ignore[no-redef]  # a stand-in no footer composes
        """Textual's footer key, which this Textual keeps elsewhere."""

PRIVATE = (
    Private("textual.screen:Screen", "_compositor_refresh", "where a screen draws an update: DrawnScreen"),
    Private("textual.widget:Widget", "_set_dirty", "where a widget is marked for a repaint: DirtyWidget"),
    Private("textual.app:App", "_fatal_error", "the report of a bug that ends the app: QuietFatalErrorApp"),
    Private("textual.app:App", "_exception", "the bug that ends the app: QuietFatalErrorApp", instance=True),
    Private("textual.message_pump:MessagePump", "_close_messages_no_wait", "the exit after a bug: QuietFatalErrorApp"),
    Private("textual.message_pump:MessagePump", "_timers", "the timers a host stops with it: one_shot_timer",
            instance=True),
    Private("textual.timer:Timer", "_start", "starts a timer made by hand: one_shot_timer"),
    Private("textual.dom:DOMNode", "_bindings", "a node's own bindings map: node_bindings", instance=True),
    Private("textual.app:App", "_keymap", "the app's keymap, normalised: app_keymap", instance=True),
    Private("textual.app:App", "_notifications", "the notifications an app shows: shown_notifications",
            instance=True),
    Private("textual.drivers.linux_driver:LinuxDriver", "_file", "the terminal output: driver_output",
            instance=True),
    Private("textual.widgets._footer", "FooterKey", "the footer's key widget: FooterKey"),
    Private("textual._keyboard_protocol", "FUNCTIONAL_KEYS", "key names a terminal sends: functional_key_names"),
)

__all__ = ["PRIVATE", "DirtyWidget", "DrawnScreen", "FooterKey", "QuietFatalErrorApp", "app_keymap",
           "driver_output", "functional_key_names", "node_bindings", "one_shot_timer", "set_driver_output",
           "shown_notifications"]


class DrawnScreen(Screen[None]):
    """A screen told each time it draws an update (`screen_drawn`), after the draw."""

    def screen_drawn(self) -> None:
        """The screen just drew an update on the terminal (override)."""

    def _compositor_refresh(self) -> None:
        super()._compositor_refresh()
        self.screen_drawn()


class DirtyWidget(Widget):
    """A widget told each time Textual marks it for a repaint (`marked_dirty`), before it is.
    `dirty_hook` is False under a Textual that no longer marks widgets this way: never told, a
    widget must not keep what it drew."""

    dirty_hook = hasattr(Widget, "_set_dirty")

    def marked_dirty(self) -> None:
        """Textual is about to repaint this widget: an update, a refresh, a new size (override)."""

    def _set_dirty(self, *regions: Region) -> None:
        self.marked_dirty()
        super()._set_dirty(*regions)


class QuietFatalErrorApp(App[None]):
    """An app whose report of a bug is its own (`report_fatal_error`); the exit stays Textual's."""

    def report_fatal_error(self, error: BaseException) -> bool:
        """Report the bug that ends the app; False leaves the report to Textual (override)."""
        return False

    def _fatal_error(self) -> None:
        error = sys.exc_info()[1] or getattr(self, "_exception", None)
        if error is None or not self.report_fatal_error(error):
            super()._fatal_error()
            return
        self._close_messages_no_wait()


def one_shot_timer(host: MessagePump, delay: float, callback: Callable[[], None], name: str) -> Timer:
    """`host.set_timer(delay, callback)`, except that it never skips its one tick (Textual's skips a
    tick it finds already due, and for a one-shot that means never firing). The same timer
    `set_timer` makes, told not to skip; a plain `set_timer` where the host keeps no timer set."""
    timers = getattr(host, "_timers", None)
    if timers is None or not hasattr(Timer, "_start"):
        return host.set_timer(delay, callback, name=name)
    timer = Timer(host, delay, name=name, callback=partial(host.call_next, callback), repeat=0, skip=False)
    timer._start()
    timers.add(timer)
    return timer


def node_bindings(node: DOMNode) -> BindingsMap:
    """The node's own bindings map (each node has a copy of its class's; the lists inside are shared);
    an empty one where Textual keeps them elsewhere (keys then untranslated and unlisted in the help)."""
    bindings: BindingsMap = getattr(node, "_bindings", None) or BindingsMap()
    return bindings


def app_keymap(app: App[Any]) -> Keymap:
    """The keymap `set_keymap` and `update_keymap` gave the app, as Textual applies it (none where
    Textual keeps it elsewhere: the help then shows the default keys)."""
    keymap: Keymap = getattr(app, "_keymap", {})
    return keymap


def shown_notifications(app: App[Any]) -> list[Notification]:
    """The notifications `app` shows now, oldest first (those whose time is up are gone); none where
    Textual keeps them elsewhere (what reads them, the tests, then fail saying what is missing)."""
    return list(getattr(app, "_notifications", ()))


def driver_output(driver: Driver) -> TextIO | None:
    """The file the Linux driver writes the terminal's output to (None where it keeps it elsewhere)."""
    output: TextIO | None = getattr(driver, "_file", None)  # set by LinuxDriver.__init__
    return output


def set_driver_output(driver: Driver, output: TextIO) -> None:
    """Have the Linux driver write to `output` (before it starts: its writer thread takes the file)."""
    driver._file = output  # type: ignore[attr-defined]


def functional_key_names() -> frozenset[str]:
    """The names Textual gives the function and keypad keys a terminal sends (`f24`, `kp_enter`);
    none if Textual has moved its table (only a keymap's check then knows fewer keys)."""
    try:
        from textual._keyboard_protocol import FUNCTIONAL_KEYS
    except ImportError:
        return frozenset()
    return frozenset(FUNCTIONAL_KEYS.values())
