"""One run in the compare screen: its stream, a gauge line and per-position bars."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from specview.boundary.text import sanitize
from specview.kernel.events import TokenEvent
from specview.widgets.position_bars import Position, PositionBars
from specview.widgets.settled import Settled
from specview.widgets.text_line import TextLine
from specview.widgets.token_view import TokenView

BAR_ROWS = 8  # of per-position bars under a pane; more positions fold into columns


class RunPane(Vertical, Settled):
    """A titled pane; the screen feeds it tokens and the texts of its numbers."""

    DEFAULT_CSS = """
    RunPane { border: round $panel; height: 1fr; width: 1fr; }
    RunPane:focus-within { border: round $primary; }
    /* No scrollbar: redrawing four of them on every frame cost more than the streams.
       The panes still scroll (wheel, keys); the full-screen pane is one key away. */
    RunPane > TokenView { height: 1fr; padding: 0; scrollbar-size-vertical: 0; }
    RunPane > .pane--gauges { height: 1; color: $text; }
    """ + f"RunPane > PositionBars {{ max-height: {BAR_ROWS}; }}"

    def __init__(self, title: str, empty_bars: str = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        # A label from outside (a recording's, a server's model id): plain text, never markup.
        self.border_title = Text(sanitize(title, 120, one_line=True))
        # Kept, not queried: the pump feeds every pane on every tick.
        self.view = TokenView()
        self._gauges = TextLine("", classes="pane--gauges")
        self._bars = PositionBars(empty_bars, max_rows=BAR_ROWS)

    def compose(self) -> ComposeResult:
        yield self.view
        yield self._gauges
        yield self._bars

    def clear(self) -> None:
        self.view.clear()

    def append(self, tokens: list[TokenEvent]) -> None:
        self.view.append(tokens)

    def drop_tail(self, count: int) -> None:
        self.view.drop_tail(count)

    def show(self, gauges: Sequence[tuple[str, str]], state: str, positions: Sequence[Position]) -> None:
        """The gauge line ((label, value) pairs, then the run's state) and the position bars."""
        line = Text(no_wrap=True, overflow="ellipsis")
        for label, value in gauges:
            line.append(f"{label} {value}  ", style="bold")
        line.append(state, style="dim")
        self._gauges.show(line)
        self._bars.set(positions)
