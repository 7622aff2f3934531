"""The fleet table in words: its columns, their cells, the sort order and what fits the width.

Textual-free (the screen and the headless timing both use it). Every column has an id (texts:
`fleetscreen.col.<id>`), a width, a priority (a narrow terminal keeps the lowest ones; the rest
are one `enter` away) and a sort key that puts rows without a value last in either direction.
Strings that came from outside (instance, method, error) are sanitized here, once per cell.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len

from specview.boundary.text import number, sanitize
from specview.features.watch.model.fleet import Alert, AlertKind, FleetSnapshot, InstanceRow, State, said_in
from specview.kernel.gauges import SPARK
from specview.texts.catalog import Phrase, fill, text

FIELD_CHARS = 200  # of an instance, engine or method as a cell holds it (before the column cuts it)
SPARK_WIDTH = 12  # windows the α sparkline shows
GAP = 1  # spaces between two columns

# One mark per alert kind, so an alert reads without colour (NO_COLOR, 16 colours, a screen reader)
ALERT_MARKS = {AlertKind.NOT_WORKING: "∅", AlertKind.ALPHA_DROP: "↓", AlertKind.DOWN: "✗",
               AlertKind.STALLED: "≡", AlertKind.SLOWER: "≪"}
OUTLIER_MARK = "≠"  # α far from the fleet's
STATE_ORDER = {State.DOWN: 0, State.STALLED: 1, State.UP: 2}  # the worst first when sorted by state

SortKey = tuple[int, float | str]


def _known(value: float | str | None) -> SortKey:
    return (1, 0.0) if value is None else (0, value)


def _window(row: InstanceRow, read: Callable[..., float | None]) -> SortKey:
    return _known(read(row.window) if row.window is not None else None)


def engine_text(row: InstanceRow) -> str:
    """'llama-server · draft-mtp' (sanitized; a dash for what is not known)."""
    engine = sanitize(row.engine or "—", FIELD_CHARS, one_line=True)
    return f"{engine} · {sanitize(row.method, FIELD_CHARS, one_line=True)}" if row.method else engine


def short_instance(instance: str) -> str:
    """The instance as its column shows it: without the scheme (every direct target has one), and
    its end kept where it is long (instances differ at their ends: host, port)."""
    bare = instance.split("://", 1)[1] if "://" in instance[:10] else instance
    cut = "…" + bare[-FIELD_CHARS:] if len(bare) > FIELD_CHARS else bare
    return sanitize(cut, 4 * FIELD_CHARS, one_line=True)  # room for the escapes it may add


def tail(cell: str, width: int) -> str:
    """`cell` cut from the left to `width` cells: instances differ at their ends (host, port)."""
    if cell_len(cell) <= width:
        return cell
    while cell and cell_len(cell) > width - 1:
        cell = cell[1:]
    return "…" + cell


def clock(t: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(t))


def state_text(row: InstanceRow, lang: str) -> str:
    """'up', 'down since 12:03:04', 'stalled since …'."""
    if row.since is None:
        return text(f"fleetscreen.state.{row.state.value}", lang)
    return fill(f"fleetscreen.state_since.{row.state.value}", lang, since=clock(row.since))


def marks(row: InstanceRow) -> str:
    """The row's non-colour marks: its first alert's kind, then ≠ for an outlier."""
    alert = ALERT_MARKS.get(row.alerts[0].kind, "!") if row.alerts else " "
    return alert + (OUTLIER_MARK if row.outlier else " ")


def sparkline(values: Sequence[float | None], width: int = SPARK_WIDTH) -> str:
    """α over the last `width` windows on a fixed 0…1 scale (a window without α is a space)."""
    shown = list(values[-width:])
    cells = [" " if v is None else SPARK[min(len(SPARK) - 1, max(0, int(v * len(SPARK))))] for v in shown]
    return "".join(cells).rjust(width)


def _num(read: Callable[..., float | None], fmt: str) -> Callable[[InstanceRow, str], str]:
    return lambda row, _lang: number(read(row.window), fmt) if row.window is not None else "—"


@dataclass(frozen=True, slots=True)
class Column:
    """One column of the table."""

    id: str
    width: int
    priority: int  # a narrow terminal keeps the lowest first
    right: bool  # numbers align right
    cell: Callable[[InstanceRow, str], str]
    key: Callable[[InstanceRow], SortKey]
    grows: bool = False  # takes the room left over (the instance)


COLUMNS: tuple[Column, ...] = (
    Column("mark", 2, 0, False, lambda r, _t: marks(r), lambda r: (0, -len(r.alerts) * 2 - r.outlier)),
    Column("instance", 20, 0, False, lambda r, _t: short_instance(r.instance),
           lambda r: (0, r.instance.lower()), grows=True),
    Column("engine", 20, 3, False, lambda r, _t: engine_text(r), lambda r: (0, engine_text(r).lower())),
    Column("gamma", 3, 6, True, lambda r, _t: number(r.gamma, "d"), lambda r: _known(r.gamma)),
    Column("alpha", 6, 1, True, _num(lambda s: s.alpha, ".3f"), lambda r: _window(r, lambda s: s.alpha)),
    Column("yield", 8, 5, True, _num(lambda s: s.draft_yield, ".3f"), lambda r: _window(r, lambda s: s.draft_yield)),
    Column("length", 5, 2, True, _num(lambda s: s.mean_accepted_length, ".2f"),
           lambda r: _window(r, lambda s: s.mean_accepted_length)),
    Column("drafted_s", 11, 4, True, _num(lambda s: s.draft_tokens_per_s, ".1f"),
           lambda r: _window(r, lambda s: s.draft_tokens_per_s)),
    Column("tokens_s", 8, 2, True, _num(lambda s: s.tokens_per_s, ".1f"),
           lambda r: _window(r, lambda s: s.tokens_per_s)),
    Column("running", 4, 4, True, _num(lambda s: s.active, "g"), lambda r: _window(r, lambda s: s.active)),
    Column("state", 19, 1, False, state_text, lambda r: (0, STATE_ORDER[r.state])),
    Column("spark", SPARK_WIDTH, 7, False, lambda r, _t: sparkline(r.alpha_history),
           lambda r: _known(next((a for a in reversed(r.alpha_history) if a is not None), None))),
)
BY_ID = {c.id: c for c in COLUMNS}
SORTABLE = tuple(c.id for c in COLUMNS)


def fitting(width: int) -> tuple[tuple[Column, ...], tuple[int, ...]]:
    """The columns that fit `width` cells (by priority, in table order) and each one's width: the
    instance column takes what is left, so no line is ever wider than the screen."""
    chosen: set[str] = set()
    used = 0
    for column in sorted(COLUMNS, key=lambda c: c.priority):
        need = column.width + (GAP if chosen else 0)
        if used + need <= width:
            chosen.add(column.id)
            used += need
    columns = tuple(c for c in COLUMNS if c.id in chosen)
    widths = tuple(c.width + (max(0, width - used) if c.grows else 0) for c in columns)
    return columns, widths


def sort_rows(rows: Sequence[InstanceRow], column: str, reverse: bool) -> list[InstanceRow]:
    """Rows by `column` (then by instance); rows without a value stay last either way."""
    key = BY_ID[column].key
    by_instance = sorted(rows, key=lambda r: r.instance)
    known = [r for r in by_instance if key(r)[0] == 0]
    unknown = [r for r in by_instance if key(r)[0] != 0]
    return sorted(known, key=lambda r: key(r)[1], reverse=reverse) + unknown


def header_cells(columns: Sequence[Column], sort: str, reverse: bool, lang: str) -> list[str]:
    """Each column's label; the sorted one carries ▲ (ascending) or ▼ (descending)."""
    cells = []
    for column in columns:
        label = text(f"fleetscreen.col.{column.id}", lang)
        cells.append(label + ("▼" if reverse else "▲") if column.id == sort else label)
    return cells


def row_cells(row: InstanceRow, columns: Sequence[Column], widths: Sequence[int], lang: str) -> list[str]:
    """The row's cells; the instance keeps its end when it must be cut."""
    return [tail(c.cell(row, lang), w) if c.grows else c.cell(row, lang) for c, w in zip(columns, widths, strict=True)]


def alert_text(alert: Alert, lang: str) -> str:
    """An alert in words: the fleet's catalog text (`fleet.alert.<kind>`), filled with its values."""
    key = f"fleet.alert.{alert.kind.value}"
    values = {k: sanitize(said_in(v, lang) or "", 80, one_line=True) if isinstance(v, str | Phrase) else v
              for k, v in alert.values.items()}
    return fill(key, lang, **values)


def alert_line(alert: Alert, lang: str) -> str:
    """One line of the alert log: '12:03:04 ✗ http://… — does not answer'."""
    who = sanitize(alert.instance, FIELD_CHARS, one_line=True) if alert.instance else text("fleetscreen.fleet", lang)
    return f"{clock(alert.since)} {ALERT_MARKS.get(alert.kind, '!')} {who} — {alert_text(alert, lang)}"


def totals_cells(snapshot: FleetSnapshot, columns: Sequence[Column], lang: str) -> list[str]:
    """The fleet's line: its sums over the instances that are up, in the columns that add up."""
    up = sum(r.state is State.UP for r in snapshot.rows)
    row = InstanceRow(fill("fleetscreen.totals", lang, up=up, n=len(snapshot.rows)), State.UP, None, None, None,
                      None, snapshot.totals, (), False)
    summed = {"instance", "alpha", "yield", "length", "drafted_s", "tokens_s", "running"}
    return [c.cell(row, lang) if c.id in summed else "" for c in columns]
