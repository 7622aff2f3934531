"""What Prometheus holds for one instance at one time (its counters by series and position, its
gauges, `up` and the scrape's time), how a query's series are added to it, and the Scrape the watch
model folds (source/prometheus.py asks, this reads the answers)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from specview.boundary.bounds import MAX_COUNTER, MAX_POSITION, Invalid
from specview.boundary.text import shown
from specview.features.watch.model import MAX_POSITIONS, Scrape
from specview.features.watch.model.fleet import InstanceKey
from specview.features.watch.source.promql import COUNT, GAUGE, PART, SCRAPED, UP, EngineSeries
from specview.kernel.backend import Note
from specview.texts.catalog import Phrase

Key = InstanceKey  # an instance's labels: every one but these
NOT_IDENTITY = frozenset({"__name__", "position", PART})


@dataclass
class InstanceAnswer:
    """What Prometheus holds for one instance at one time."""

    values: dict[tuple[str, str], float] = field(default_factory=dict)  # (series, position) -> value
    gauges: dict[str, float] = field(default_factory=dict)
    up: float | None = None
    scraped: float | None = None  # the time of the scrape the values come from (timestamp(up))
    at: float = 0.0  # when Prometheus was asked (the time stamp where there is no `up`)
    beyond: int = 0  # position series at MAX_POSITIONS or beyond: counted, not kept


def key_of(labels: dict[str, str]) -> Key:
    """The instance a series belongs to: its labels but the series' own (see the module docstring)."""
    return tuple(sorted((name, value) for name, value in labels.items() if name not in NOT_IDENTITY))


def position_beyond(position: str) -> bool:
    """A whole `position` from MAX_POSITIONS to MAX_POSITION: counted, not kept (one that is not
    whole, or past MAX_POSITION, is kept for `_positions` to refuse by name)."""
    try:
        return MAX_POSITIONS <= int(position) <= MAX_POSITION
    except ValueError:
        return False


def add_series(into: InstanceAnswer, labels: dict[str, str], value: float) -> None:
    part, name = labels.get(PART), labels.get("__name__", "")
    if part == COUNT:
        position = labels.get("position", "")
        if position and position_beyond(position):
            into.beyond += 1
            return
        into.values[(name, position)] = value
    elif part == GAUGE:
        into.gauges[name] = value
    elif part == UP:
        into.up = value
    elif part == SCRAPED and math.isfinite(value):
        into.scraped = value


def count_of(point: InstanceAnswer, name: str | None, position: str = "") -> int | None:
    """A counter's value as a count; Invalid naming the series for one that is not."""
    if name is None or (name, position) not in point.values:
        return None
    value = point.values[(name, position)]
    if not math.isfinite(value) or not 0 <= value <= MAX_COUNTER:
        label = f'{{position="{shown(position, 20)}"}}' if position else ""
        raise Invalid(Phrase("watcherr.prometheus.not_count", name=name, label=label, value=value, most=MAX_COUNTER))
    return round(value)


def positions_of(point: InstanceAnswer, name: str | None) -> tuple[int, ...]:
    if name is None:
        return ()
    counts: dict[int, int] = {}
    for series, label in point.values:
        if series != name:
            continue
        try:
            pos = int(label)
        except ValueError:
            raise Invalid(Phrase("watcherr.prometheus.position_not_whole", name=name, label=shown(label))) from None
        if not 0 <= pos <= MAX_POSITION:
            raise Invalid(Phrase("watcherr.prometheus.position_range", name=name, label=shown(label),
                                 most=MAX_POSITION))
        counts[pos] = count_of(point, name, label) or 0
    return tuple(counts.get(k, 0) for k in range(max(counts) + 1)) if counts else ()


def scrape_of(point: InstanceAnswer, series: EngineSeries | None) -> Scrape:
    t = point.scraped if point.scraped is not None else point.at
    if series is None:
        return Scrape(t, positions_beyond=point.beyond)
    gauges = {name: v for name, v in point.gauges.items() if math.isfinite(v)}
    odd = sorted(set(point.gauges) - set(gauges))
    active = point.values.get((series.active or "", ""))
    notes = (Note("prometheus_not_finite", {"series": ", ".join(odd)}),) if odd else ()
    return Scrape(t, drafts=count_of(point, series.drafts), draft_tokens=count_of(point, series.draft_tokens),
                  accepted=count_of(point, series.accepted), per_position=positions_of(point, series.per_position),
                  tokens=count_of(point, series.tokens),
                  active=active if active is not None and math.isfinite(active) else None,
                  gauges=gauges, notes=notes, positions_beyond=point.beyond, cadence=series.cadence,
                  verify_calls=count_of(point, series.verify), requests_done=count_of(point, series.requests),
                  width=gauges.get(series.width or ""))
