"""The history chart as drawn: its scale's ends beside the rows, a constant series at its value."""

from __future__ import annotations

from textual.app import App, ComposeResult

from specview.themes.loader import TOKEN_DEFAULTS
from specview.widgets.chart_scale import RATE
from specview.widgets.history_chart import HistoryChart


class _Host(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(TOKEN_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield HistoryChart(RATE, rate=True, id="alpha")
        yield HistoryChart(id="gamma")


def _rows(chart: HistoryChart) -> list[str]:
    return [chart.render_line(y).text for y in range(chart.size.height)]


async def test_alpha_one_fills_the_chart_and_gamma_three_says_its_range() -> None:
    app = _Host()
    async with app.run_test(size=(30, 8)) as pilot:
        alpha, gamma = app.query_one("#alpha", HistoryChart), app.query_one("#gamma", HistoryChart)
        alpha.show([1.0] * 40)
        gamma.show([3.0] * 40)
        await pilot.pause()
        assert _rows(alpha) == ["1.00▕" + "█" * 25, "    ▕" + "█" * 25, "0.00▕" + "█" * 25]
        assert _rows(gamma) == ["3▕" + "█" * 28, " ▕" + "█" * 28, "0▕" + "█" * 28]
        alpha.show([0.5, None, 1.0])  # fewer points than the width: the latest at the right edge
        await pilot.pause()
        assert _rows(alpha)[0].endswith("  █") and _rows(alpha)[2].endswith("█ █")
