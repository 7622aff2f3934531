"""The slider keeps an exact value between its steps until the user moves it (a preset's α on Learn 10)."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from specview.widgets.slider import Slider

STEPS = [round(i * 0.01, 2) for i in range(100)]


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.changes: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Slider("α", STEPS, 80, lambda v: f"{v:.4f}", id="alpha")

    def on_slider_changed(self, event: Slider.Changed) -> None:
        self.changes.append(event.value)


async def test_an_exact_value_is_kept_until_the_user_moves_and_then_snaps_to_a_step() -> None:
    app = Host()
    async with app.run_test() as pilot:
        slider = app.query_one(Slider)
        slider.select(0.8876371445, exact=True)
        await pilot.pause()
        assert slider.value == 0.8876371445 and slider.index == STEPS.index(0.89)
        assert "0.8876" in str(slider.render()) and app.changes == []  # set by the program: no Changed
        slider.focus()
        await pilot.press("left")
        await pilot.pause()
        assert slider.value == 0.88 and app.changes == [0.88]
        slider.select(0.8876371445)  # without exact: the nearest step, as before
        assert slider.value == 0.89
        slider.select(0.5, exact=True)  # a value on a step is that step
        assert slider.value == 0.5 and slider.held is None
