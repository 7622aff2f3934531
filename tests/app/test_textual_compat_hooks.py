"""The hooks specview/compat/textual_compat.py builds on Textual's private methods are called when
Textual does what they name: a screen draws, a widget is marked for a repaint, a bug ends the app."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from specview.compat.textual_compat import DirtyWidget, DrawnScreen, QuietFatalErrorApp
from tests.support.app_helpers import wait_until


class CountingScreen(DrawnScreen):
    draws = 0

    def compose(self) -> ComposeResult:
        yield Static("x", id="text")

    def screen_drawn(self) -> None:
        self.draws += 1


class CountingWidget(DirtyWidget):
    marks = 0

    def marked_dirty(self) -> None:
        self.marks += 1


async def test_a_drawn_screen_is_told_each_time_it_draws() -> None:
    screen = CountingScreen()
    app: App[None] = App()
    async with app.run_test() as pilot:
        await app.push_screen(screen)
        await pilot.pause()
        before = screen.draws
        screen.query_one("#text", Static).update("y")
        await wait_until(pilot, lambda: screen.draws > before)


async def test_a_dirty_widget_is_told_before_its_repaint() -> None:
    widget = CountingWidget()

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield widget

    async with Host().run_test() as pilot:
        await pilot.pause()
        before = widget.marks
        widget.refresh()
        assert widget.marks > before


class Broken(QuietFatalErrorApp):
    reported: list[BaseException] = []

    def report_fatal_error(self, error: BaseException) -> bool:
        self.reported.append(error)
        return True

    def on_mount(self) -> None:
        raise ValueError("broken on mount")


async def test_a_bug_is_reported_by_the_app_and_ends_it() -> None:
    app = Broken()
    with pytest.raises(ValueError, match="broken on mount"):
        async with app.run_test():
            pass
    assert [str(error) for error in Broken.reported] == ["broken on mount"]
    assert app.return_code == 1
