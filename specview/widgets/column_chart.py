"""Vertical columns for a curve over a few x values, with series told apart by glyph.

Each x gets one column per series side by side (theory █, measured ▒, cited ◆ …), horizontal
reference lines (1×, a cited slowdown) are drawn across empty cells, and one x can be marked
▲ under its label (the best γ, the chosen batch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget

_EIGHTHS = " ▁▂▃▄▅▆▇█"
AXIS = 7


@dataclass(frozen=True, slots=True)
class Series:
    """One series: a value per x (None = no value there).

    A filled series draws a column of `glyph` up to its value ('█' in eighths, others in whole
    cells); an unfilled one puts `glyph` as a marker in the row that holds its value.
    """

    values: tuple[float | None, ...]
    glyph: str = "█"
    style: str = "first"  # first | second | third
    fill: bool = True


@dataclass(frozen=True, slots=True)
class Reference:
    """A horizontal line at `value`, drawn with `glyph` where no column covers it."""

    value: float
    glyph: str = "┄"


class ColumnChart(Widget):
    """Fixed-height chart; `set` replaces everything and redraws."""

    DEFAULT_CSS = """
    ColumnChart { height: 9; }
    ColumnChart > .chart--first { color: $token-accepted; }
    ColumnChart > .chart--second { color: $token-bonus; }
    ColumnChart > .chart--third { color: $token-corrected; }
    ColumnChart > .chart--axis { color: $text-muted; }
    ColumnChart > .chart--mark { color: $text; text-style: bold; }
    """
    COMPONENT_CLASSES = {"chart--first", "chart--second", "chart--third", "chart--axis", "chart--mark"}

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.labels: tuple[str, ...] = ()
        self.series: tuple[Series, ...] = ()
        self.references: tuple[Reference, ...] = ()
        self.mark: int | None = None
        self.unit = ""

    def set(self, labels: Sequence[str], series: Sequence[Series], *, references: Sequence[Reference] = (),
            mark: int | None = None, unit: str = "") -> None:
        """Show `series` over the x `labels`."""
        if any(len(s.values) != len(labels) for s in series):
            raise ValueError("every series needs one value per label")
        self.labels, self.series, self.references = tuple(labels), tuple(series), tuple(references)
        self.mark, self.unit = mark, unit
        self.refresh()

    def _top(self) -> float:
        values = [v for s in self.series for v in s.values if v is not None]
        values += [r.value for r in self.references]
        return max([*values, 1e-12]) * 1.05

    def render(self) -> Text:
        style = self.get_component_rich_style
        out = Text(no_wrap=True, overflow="crop")
        rows = max(2, self.size.height - 2)  # two lines for the x labels and the mark
        top = self._top()
        group = max(1, len(self.series))
        width = max(1, min(3, (self.size.width - AXIS) // max(1, len(self.labels)) - 1)) if group == 1 else 1
        if group > 1:  # side by side, a cell each; wider where a label would touch the next one, room allowing
            need = -(-max((cell_len(label) for label in self.labels), default=0) // group)
            room = ((self.size.width - AXIS) // max(1, len(self.labels)) - 1) // group
            width = max(1, min(need, room, 3))
        ref_rows: dict[int, Reference] = {}
        for r in self.references:  # the first reference keeps a row two would share
            ref_rows.setdefault(min(rows - 1, int(r.value / top * rows)), r)
        for row in range(rows - 1, -1, -1):  # top line first
            ref = ref_rows.get(row)
            axis = self._axis_label(row, rows, top, ref)
            out.append(axis.rjust(AXIS - 1) + ("┤" if axis.strip() else "│"), style("chart--axis"))
            for x in range(len(self.labels)):
                for s in self.series:
                    glyph = self._cell(s, x, row, rows, top)
                    if glyph == " " and ref is not None:
                        out.append(ref.glyph * width, style("chart--axis"))
                    else:
                        out.append(glyph * width, style(f"chart--{s.style}"))
                filler = ref.glyph if ref is not None else " "
                out.append(filler, style("chart--axis"))
            out.append("\n")
        out.append(" " * (AXIS - 1) + "└", style("chart--axis"))
        column = group * width + 1
        for label in self.labels:
            out.append(label[:column].center(column) if cell_len(label) <= column else label[: column - 1] + " ",
                       style("chart--axis"))
        out.append("\n" + " " * AXIS)
        for x in range(len(self.labels)):
            out.append(("▲" if x == self.mark else " ").center(column), style("chart--mark"))
        return out

    def _axis_label(self, row: int, rows: int, top: float, ref: Reference | None) -> str:
        if row == rows - 1:
            return f"{top / 1.05:.3g}{self.unit}"
        if ref is not None:
            return f"{ref.value:.3g}{self.unit}"
        return ""

    @staticmethod
    def _cell(series: Series, x: int, row: int, rows: int, top: float) -> str:
        value = series.values[x]
        if value is None:
            return " "
        height = value / top * rows  # in rows
        if not series.fill:  # a marker sits in the row that holds its value
            return series.glyph if int(min(height, rows - 1e-9)) == row else " "
        if series.glyph != "█":
            return series.glyph if height >= row + 0.5 else " "
        if height >= row + 1:
            return "█"
        if height <= row:
            return " "
        return _EIGHTHS[max(1, int((height - row) * 8))]
