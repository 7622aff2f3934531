"""The token view on its own: following the end, pruning the oldest tokens."""

from __future__ import annotations

from textual.app import ComposeResult

from specview.kernel.events import TokenEvent, TokenStatus
from specview.themes.loader import TOKEN_DEFAULTS
from specview.widgets.token_view import TokenView
from tests.support.line_filters import AddedLineFilters


class ViewApp(AddedLineFilters):
    def __init__(self, max_tokens: int = 20_000) -> None:
        super().__init__()
        self.max_tokens = max_tokens

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(TOKEN_DEFAULTS)  # the token colours the app's themes define

    def compose(self) -> ComposeResult:
        yield TokenView(max_tokens=self.max_tokens)


def words(start: int, n: int) -> list[TokenEvent]:
    return [TokenEvent(i, f" w{i}", TokenStatus.ACCEPTED) for i in range(start, start + n)]


async def test_a_pane_that_gets_shorter_keeps_following_the_end() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 30)) as pilot:
        view = app.query_one(TokenView)
        view.append(words(0, 400))
        await pilot.pause()
        assert view.scroll_y == view.max_scroll_y > 0
        view.styles.height = 10  # e.g. a table below it grew
        await pilot.pause()
        assert view.scroll_y == view.max_scroll_y
        view.append(words(400, 50))
        await pilot.pause()
        assert view.scroll_y == view.max_scroll_y


async def test_scrolling_up_stops_following_until_back_at_the_end() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(TokenView)
        view.append(words(0, 400))
        await pilot.pause()
        view.scroll_to(y=0, animate=False, immediate=True)
        view.append(words(400, 50))
        await pilot.pause()
        assert view.scroll_y == 0
        view.scroll_end(animate=False, immediate=True)
        view.append(words(450, 50))
        await pilot.pause()
        assert view.scroll_y == view.max_scroll_y


async def test_pruning_keeps_the_newest_tokens_and_the_selection() -> None:
    app = ViewApp(max_tokens=1000)
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(TokenView)
        view.append(words(0, 900))
        view.select(850)
        await pilot.pause()
        view.append(words(900, 300))  # over the cap: the oldest whole lines go
        await pilot.pause()
        assert 800 <= view.token_count <= 1000
        assert view.tokens[-1].token_id == 1199
        assert view.selected is not None and view.tokens[view.selected].token_id == 850
        assert view.plain_text().endswith(" w1198 w1199")


async def test_a_view_without_a_scrollbar_follows_the_end_without_laying_the_screen_out() -> None:
    app = ViewApp(max_tokens=1000)  # and pruned about once every 200 tokens
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(TokenView)
        view.set_styles("scrollbar-size-vertical: 0;")  # the compare pane's
        view.append(words(0, 200))  # scrollable from here on
        await pilot.pause()
        layouts: list[object] = []  # each time the screen lays itself out (Textual's public signal)
        app.screen.screen_layout_refresh_signal.subscribe(view, layouts.append, immediate=True)
        for start in range(200, 2200, 40):  # about fifty jumps to the end
            view.append(words(start, 40))
            await pilot.pause()
            assert view.scroll_y == view.max_scroll_y > 0
            assert view.line_count - 1 in range(int(view.scroll_y), int(view.scroll_y) + view.size.height)
            assert view.plain_text().endswith(f" w{start + 39}")
        app.screen.screen_layout_refresh_signal.unsubscribe(view)
        assert view.token_count <= 1000 and view.tokens[0].token_id > 1000  # it did prune
        assert not layouts  # neither a new height, nor a prune, nor a new scroll offset laid the screen out
        for _ in range(3):
            view.action_scroll_up()  # what the wheel and the keys do: still allowed, and it stops following
        await pilot.pause()
        assert view.scroll_y < view.max_scroll_y
        view.append(words(2200, 40))
        await pilot.pause()
        assert view.scroll_y < view.max_scroll_y


async def test_pruning_while_scrolled_up_keeps_the_text_in_view() -> None:
    for bar in ("", "scrollbar-size-vertical: 0;"):  # the live screen's view and a compare pane's
        app = ViewApp(max_tokens=1000)
        async with app.run_test(size=(40, 12)) as pilot:
            view = app.query_one(TokenView)
            if bar:
                view.set_styles(bar)
            view.append(words(0, 990))
            await pilot.pause()
            view.scroll_to(y=view.max_scroll_y - 20, animate=False, immediate=True)  # reading the recent past
            await pilot.pause()
            before = view.visible_text()
            view.append(words(990, 60))  # over the cap: the oldest lines go, every line index moves
            await pilot.pause()
            assert view.tokens[0].token_id > 0  # it pruned
            assert view.visible_text() == before
            assert view.scroll_target_y == view.scroll_y  # the wheel goes on from here, not from the old offset


async def test_a_scroll_up_stops_following_from_its_first_step() -> None:
    """An animated scroll up's first step stays within a line of the end; a token arriving then
    must not take the view back down."""
    app = ViewApp()
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(TokenView)
        view.append(words(0, 400))
        await pilot.pause()
        end = view.max_scroll_y
        assert end > 0 and view.scroll_y == end
        view.scroll_target_y = end - 3  # where an animated scroll up is going...
        view.scroll_y = end - 0.5  # ...and its first step
        view.append(words(400, 40))
        await pilot.pause()
        assert view.scroll_y < view.max_scroll_y


async def test_tokens_arriving_while_a_scroll_up_animates_leave_the_view_where_the_user_went() -> None:
    """A fast machine: the next tokens arrive before the scroll's animation has taken a step, and
    prune the oldest lines (every line number moves up). Following stops at the key press, and the
    animation must not go on to an offset counted before the prune (the new end, once clamped)."""
    for bar in ("", "scrollbar-size-vertical: 0;"):  # the live screen's view and a compare pane's
        for level in ("full", "none"):  # animated, and instant (Textual sets the value on its next tick)
            app = ViewApp(max_tokens=1000)
            async with app.run_test(size=(40, 12)) as pilot:
                app.animation_level = level
                view = app.query_one(TokenView)
                if bar:
                    view.set_styles(bar)
                view.append(words(0, 990))
                await pilot.pause()
                assert view.scroll_y == view.max_scroll_y > 0
                for _ in range(3):
                    view.action_scroll_up()
                view.append(words(990, 60))  # over the cap: the oldest lines go
                await pilot.wait_for_scheduled_animations()
                assert view.tokens[0].token_id > 0  # it pruned
                assert view.scroll_y == view.scroll_target_y < view.max_scroll_y, (bar, level)
                shown = view.visible_text()
                view.append(words(1050, 40))
                await pilot.wait_for_scheduled_animations()
                assert view.visible_text() == shown, (bar, level)


async def test_one_line_up_stops_following_before_the_view_has_moved() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(TokenView)
        view.append(words(0, 400))
        await pilot.pause()
        end = view.max_scroll_y
        view.action_scroll_up()  # one key press: one line, still on its way
        view.append(words(400, 40))
        await pilot.wait_for_scheduled_animations()
        assert view.scroll_y == end - 1 < view.max_scroll_y
        view.action_scroll_end()  # back at the end, it follows again
        await pilot.wait_for_scheduled_animations()
        end = view.max_scroll_y
        view.append(words(440, 40))
        await pilot.wait_for_scheduled_animations()
        assert view.scroll_y == view.max_scroll_y > end
