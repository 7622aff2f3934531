"""The token view on its own: following the end, pruning the oldest tokens."""

from __future__ import annotations

from textual.app import App, ComposeResult

from specview.kernel.events import TokenEvent, TokenStatus
from specview.themes.loader import TOKEN_DEFAULTS
from specview.widgets.token_view import TokenView


class ViewApp(App[None]):
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
