"""One measured number: label, fixed-width value, optional bar, and a note (theory, exactness)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget

from specview.widgets.bars import bar


class StatGauge(Widget):
    """A labelled value that keeps its width, so updates never re-layout the panel."""

    DEFAULT_CSS = """
    StatGauge { height: auto; min-height: 1; width: 1fr; }
    StatGauge > .gauge--label { color: $text-muted; }
    StatGauge > .gauge--value { color: $text; text-style: bold; }
    StatGauge > .gauge--bar { color: $token-accepted; }
    StatGauge > .gauge--note { color: $text-muted; }
    """
    COMPONENT_CLASSES = {"gauge--label", "gauge--value", "gauge--bar", "gauge--note"}

    def __init__(self, label: str, *, value_width: int = 7, show_bar: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.label = label
        self.value_width = value_width
        self.show_bar = show_bar
        self.value = "—"
        self.fraction: float | None = None
        self.note = ""

    def set(self, value: str, fraction: float | None = None, note: str = "") -> None:
        """Update; redraws only when something visible changed."""
        if (value, fraction, note) == (self.value, self.fraction, self.note):
            return
        # a new height needs a layout: a note appears, goes, or wraps onto more or fewer lines
        relayout = self._rows(note) != self._rows(self.note)
        self.value, self.fraction, self.note = value, fraction, note
        self.refresh(layout=relayout)

    def _rows(self, note: str) -> int:
        """Lines the gauge takes with `note`, as `render` lays them out."""
        return 1 + len(note_lines(note, max(8, self.size.width - NOTE_INDENT)))

    def render(self) -> Text:
        style = self.get_component_rich_style
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(self.label + " " * max(1, 14 - cell_len(self.label)), style("gauge--label"))
        line.append(f"{self.value:>{self.value_width}}", style("gauge--value"))
        if self.show_bar:
            width = max(0, min(12, self.size.width - 14 - self.value_width - 3))
            if width >= 3:
                line.append(" ▕", style("gauge--label"))
                line.append(bar(self.fraction or 0.0, width), style("gauge--bar"))
                line.append("▏", style("gauge--label"))
        for note_line in note_lines(self.note, max(8, self.size.width - NOTE_INDENT)):
            line.append("\n")
            line.append(" " * NOTE_INDENT + note_line, style("gauge--note"))
        return line


NOTE_INDENT = 2
NOTE_JOIN = " · "


def note_lines(note: str, width: int) -> list[str]:
    """The note on lines of at most `width` cells, broken between its " · " parts where it can."""
    lines: list[str] = []
    for part in note.split(NOTE_JOIN) if note else []:
        if lines and cell_len(lines[-1] + NOTE_JOIN + part) <= width:
            lines[-1] += NOTE_JOIN + part
        else:
            lines.append(part)
    return lines
