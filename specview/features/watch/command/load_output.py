"""Acceptance against load in the fleet's headless outputs (model/by_load.py): each instance's
`by_load` in --json, and one CSV row per instance and level (`row` = "load") in --csv.

A load row fills the columns the other rows have where they mean the same (alpha is α
at that level, acceptance_rate and draft_yield the yield, accept_length τ, tokens_per_s, running the level, window_s
the seconds watched at it) and the load columns that only it fills: the 95 % intervals, the
windows and tokens/s per request; and, where a baseline exists (model/crossover.py), plain
decoding's tokens/s per request at that level, speculation's ÷ it (`vs_plain`), the verdict
(`vs_plain_outcome`: above, below, within_noise), the instance's crossover level (empty where it
is not reached) and the baseline's basis (measured, given). Without one these are empty, and
`crossover` and `baseline` are null in the JSON.
"""

from __future__ import annotations

from typing import Any

from specview.backends.remote.registry import kind_by_id
from specview.boundary.text import sanitize
from specview.features.watch.model.by_load import LoadLevel
from specview.features.watch.model.crossover import Crossover
from specview.features.watch.model.fleet import FleetSnapshot, InstanceRow

LOAD_COLUMNS = ("alpha_low", "alpha_high", "yield_low", "yield_high", "tau_low", "tau_high", "tokens_per_s_low",
                "tokens_per_s_high", "tokens_per_s_per_request", "windows")
BASELINE_COLUMNS = ("plain_tokens_per_s_per_request", "vs_plain", "vs_plain_outcome", "crossover", "baseline_basis")


def load_record(row: InstanceRow) -> dict[str, Any] | None:
    """The instance's `by_load` (None: no table), its gauge named from its engine."""
    if row.by_load is None:
        return None
    record = row.by_load.to_dict()
    kind = kind_by_id(row.engine) if row.engine else None
    record["gauge"] = kind.active_gauge if kind is not None else None
    return record


def load_csv_rows(snap: FleetSnapshot, when: str | None, columns: tuple[str, ...]) -> list[tuple[object, ...]]:
    """One CSV row per instance and level of running requests, its cells in `columns`' order (the
    fleet CSV's; a column a load row does not fill is empty)."""
    out: list[tuple[object, ...]] = []
    for row in snap.rows:
        if row.by_load is None:
            continue
        name = sanitize(row.instance, 300, one_line=True)
        method = sanitize(row.method, 300, one_line=True) if row.method else None
        crossover = row.by_load.crossover()
        for level in row.by_load.rows():
            cells = {"time": when, "row": "load", "instance": name, "engine": row.engine, "method": method,
                     "state": row.state.value, "alpha": _r(level.alpha), "draft_yield": _r(level.draft_yield),
                     "acceptance_rate": _r(level.draft_yield),  # the engines' sense: accepted ÷ drafted
                     "accept_length": _r(level.tau), "tokens_per_s": _r(level.tokens_per_s, 2),
                     "running": level.level, "window_s": round(level.seconds, 3), **_load_cells(level),
                     **_baseline_cells(crossover, level.level)}
            out.append(tuple(cells.get(column, "") for column in columns))
    return out


def _load_cells(level: LoadLevel) -> dict[str, object]:
    """The LOAD_COLUMNS of one level."""
    pairs = (level.alpha_interval, level.yield_interval, level.tau_interval, level.tokens_per_s_interval)
    values = [_r(v, 2 if k == 3 else 4) for k, pair in enumerate(pairs) for v in (pair or (None, None))]
    return dict(zip(LOAD_COLUMNS, [*values, _r(level.tokens_per_s_per_request, 2), level.windows], strict=True))


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _baseline_cells(crossover: Crossover, running: int) -> dict[str, object]:
    """The BASELINE_COLUMNS of one level (empty without a baseline, or where it has no such level)."""
    if crossover.baseline is None:
        return {}
    against = crossover.at(running)
    cells: dict[str, object] = {"crossover": crossover.running if crossover.running is not None else "",
                                "baseline_basis": crossover.baseline.basis}
    if against is not None:
        ratio = against.vs_plain
        cells.update(plain_tokens_per_s_per_request=round(against.plain.value, 2),
                     vs_plain=None if ratio is None else round(ratio, 3), vs_plain_outcome=against.outcome.value)
    return cells
