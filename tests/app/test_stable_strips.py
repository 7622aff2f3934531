"""The token view's finished lines: a line that did not change is the same Strip wherever it is drawn."""

from __future__ import annotations

from textual.geometry import Region

from specview.widgets.stable_strips import StableStylesCache
from specview.widgets.token_view import TokenView
from tests.app.test_token_view import ViewApp, words


def finished(view: TokenView) -> list[object]:
    return view.render_lines(Region(0, 0, view.size.width, view.size.height))


async def test_a_scrolled_line_comes_back_as_the_same_strip() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(TokenView)
        assert isinstance(view._styles_cache, StableStylesCache)
        view.append(words(0, 400))
        await pilot.pause()
        view.scroll_to(y=10, animate=False, immediate=True)
        await pilot.pause()
        before = finished(view)
        view.scroll_to(y=11, animate=False, immediate=True)  # every line moves up one row
        await pilot.pause()
        count = view._styles_cache.finished_count
        after = finished(view)
        assert all(a is b for a, b in zip(after[:-1], before[1:], strict=True))  # filters applied: cached too
        assert view._styles_cache.finished_count == count  # nothing finished again


async def test_a_changed_look_finishes_the_lines_again() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 12)) as pilot:
        view = app.query_one(TokenView)
        view.append(words(0, 100))
        await pilot.pause()
        before = finished(view)
        view.styles.tint = "red 50%"
        await pilot.pause()
        after = finished(view)
        assert not any(a is b for a, b in zip(after, before, strict=True))
        assert [s.text for s in after] == [s.text for s in before]


async def test_appending_finishes_only_the_lines_it_changed() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 30)) as pilot:
        view = app.query_one(TokenView)
        view.append(words(0, 30))  # a few lines, no scrolling
        await pilot.pause()
        before = finished(view)
        last = view.line_count - 1
        view.append(words(30, 1))
        await pilot.pause()
        after = finished(view)
        changed = [y for y, (a, b) in enumerate(zip(after, before, strict=True)) if a is not b]
        assert changed and min(changed) >= last
