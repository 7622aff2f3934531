"""The side panel folded into one line, for terminals too narrow for both: `α 0.83 ▕███▊ ▏ · τ 2.71 · …`."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text

from specview.widgets.bars import bar
from specview.widgets.text_line import TextLine

BAR_CELLS = 6


class GaugeStrip(TextLine):
    """(label, value) pairs on one line, the first with a small bar; redrawn only when they change."""

    DEFAULT_CSS = """
    GaugeStrip { height: 1; padding: 0 1; background: $panel; }
    GaugeStrip > .strip--label { color: $text-muted; }
    GaugeStrip > .strip--value { color: $text; text-style: bold; }
    GaugeStrip > .strip--bar { color: $token-accepted; }
    """
    COMPONENT_CLASSES = {"strip--label", "strip--value", "strip--bar"}

    def __init__(self, **kwargs: object) -> None:
        super().__init__("", **kwargs)
        self._parts: tuple[tuple[str, str], ...] = ()
        self._fraction: float | None = None
        self._origin = ""

    def set(self, parts: Sequence[tuple[str, str]], fraction: float | None = None, origin: str = "") -> None:
        """Show `parts`; `fraction` (0..1) draws a bar after the first value; `origin` (where the
        numbers come from: simulated, assumed…) ends the line and always keeps its room."""
        self._parts, self._fraction, self._origin = tuple(parts), fraction, origin
        self.show(self._line())

    def _line(self) -> Text:
        style = self.get_component_rich_style
        line = Text(no_wrap=True, overflow="ellipsis")
        tail = f" · {self._origin}" if self._origin else ""
        room = self.size.width - cell_len(tail)
        bar_room = sum(cell_len(f" · {label} {value}") for label, value in self._parts) + BAR_CELLS + 3 <= room
        for n, (label, value) in enumerate(self._parts):
            piece = f"{' · ' if n else ''}{label} {value}"
            if n and line.cell_len + cell_len(piece) > room:
                break  # whole gauges only: a number cut in half reads as another number
            if n:
                line.append(" · ", style("strip--label"))
            line.append(f"{label} ", style("strip--label"))
            line.append(value, style("strip--value"))
            if n == 0 and self._fraction is not None and room >= 60 and bar_room:
                line.append(" ▕", style("strip--label"))
                line.append(bar(self._fraction, BAR_CELLS), style("strip--bar"))
                line.append("▏", style("strip--label"))
        if tail:
            line.append(tail, style("strip--label"))
        return line

    def on_resize(self) -> None:
        self.show(self._line())
