"""The gauge table: every number a view shows, in one list.

The live side panel, the compare panes and summary table, `bench --table`, the monitor of
`specview watch` and the help screen all read GAUGES: a view shows the gauges that name it in
`views`, in table order. The gauges are the units of the plugin surface's group `specview.gauges`
(specview/plugins/): specview's own are the table in kernel/gauge_units/ and one module beside it
per further gauge. Adding a gauge = one module there (or in a plugin) defining a GaugeSpec whose
`after` places it, plus its texts: `gauge.<key>.label`, `.short`, `.help` and, when it has one,
`.note`, in `texts/gauges.<lang>.toml` or beside the module (`<module>.<lang>.toml`). Values come
out formatted (`formatted`), so widgets only draw text.

A gauge reads a `Reading`: one snapshot, the theory overlay for it and the run's BackendInfo.
`window` is what the live views show (the last rounds), `run` the whole run (summary, bench).
A gauge with a `spread` (one standard error: kernel/spread.py) writes its whole-run value as
"1.68× ± 0.12" wherever the whole run's value is shown.
In the monitor (view WATCH) there is no run of ours: `watched` reads a `WatchedInterval`
(kernel/watched_interval.py), what a server's /metrics counters did over one poll interval.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from specview.boundary.text import number
from specview.kernel.backend import BackendInfo, Exact, Origin
from specview.kernel.metrics_snapshot import MetricsSnapshot
from specview.kernel.overlay import Overlay, overlay, plain_run
from specview.kernel.unmeasured import why_missing
from specview.kernel.watched_interval import WatchedInterval
from specview.plugins.surface import Group, units
from specview.texts.catalog import Phrase

PANEL = "panel"  # the live view's side panel
PANE = "pane"  # a compare pane's gauge line
STRIP = "strip"  # the live view's one-line gauge strip (terminals too narrow for the side panel)
SUMMARY = "summary"  # the compare screen's table
BENCH = "bench"  # `specview bench --table`
WATCH = "watch"  # `specview watch`: a server's /metrics deltas


@dataclass(frozen=True, slots=True)
class Reading:
    """What a gauge reads: one snapshot, the theory beside it, and what the run is."""

    snap: MetricsSnapshot
    over: Overlay
    info: BackendInfo

    @classmethod
    def of(cls, snap: MetricsSnapshot, info: BackendInfo) -> Reading:
        return cls(snap, overlay(snap, plain=plain_run(info.gamma, snap)), info)

    @property
    def missing(self) -> dict[str, str]:
        """The numbers the run's engine cannot give, by `bench --json` key, with the reason's id."""
        return why_missing(self.info, self.snap, self.over)


Value = Callable[[Reading], float | None]
NoteFields = Callable[[Reading], dict[str, str] | None]  # the values of a gauge's note template
Source = Callable[[Reading], tuple[str, dict[str, str]]]  # (catalog id, its values): where the value comes from
Watched = Callable[[WatchedInterval], float | None]
Judged = Callable[[Reading], tuple[str, dict[str, str]] | None]  # a verdict's words (catalog id, values), or None
Withheld = Callable[[Reading], Phrase | None]  # why a value that was measured is not shown, or None
WatchedNoteFields = Callable[[WatchedInterval], dict[str, object] | None]  # a value may be a Phrase


SPARK = "▁▂▃▄▅▆▇█"  # a sparkline's steps (the verify-cost curve)

# a timed number on a virtual clock: the tag that says whose
ORIGIN_TAGS = {Origin.SIMULATED: "tag.simulated", Origin.RECORDED: "tag.recorded"}


@dataclass(frozen=True, slots=True)
class GaugeSpec:
    """One number: how to read it, format it, judge it and explain it.

    Catalog ids: `gauge.<key>.label` (side panel), `.short` (panes, tables), `.help` (help
    screen) and `.note` (a template filled from `note`). `exact_key` names the entry of
    `BackendInfo.exact` that says whether the backend reports the number or specview infers it;
    `timed` numbers come from the run's clock, so a virtual clock makes them simulated/recorded.
    """

    key: str
    run: Value
    fmt: str
    views: frozenset[str]
    window: Value | None = None
    run_fmt: str | None = None
    suffix: str = ""
    higher_is_better: bool | None = None  # None: no leader in the summary table
    bar: bool = False  # shown with a bar (the value is a fraction)
    exact_key: Exact | None = None
    timed: bool = False
    note: NoteFields | None = None
    provenance_key: str | None = None  # the simulator's `provenance.outputs` entry for this value
    source: Source | None = None  # a value-dependent origin (the speedup's baseline, the verify costs')
    watched: Watched | None = None  # its value in the monitor (view WATCH)
    watched_note: WatchedNoteFields | None = None  # values for its note template there
    spread: Value | None = None  # one standard error of the whole run's value (None: unknown)
    judged: Judged | None = None  # what kernel/verdict.py says of the value, where it says something
    # the `bench --json` key whose reason (kernel/unmeasured.py) the note states when the engine
    # cannot give it (c, v, the theory)
    missing_key: str | None = None
    optional: bool = False  # the side panel shows its row only once it has a value (a run of one kind)
    # why the value is "—" although it was measured (a baseline taken on a busy machine: kernel/contended.py)
    withheld: Withheld | None = None
    after: str | None = None  # a gauge of a unit of its own: the key of the gauge it follows in the table

    @property
    def label_id(self) -> str:
        return f"gauge.{self.key}.label"

    @property
    def short_id(self) -> str:
        return f"gauge.{self.key}.short"

    @property
    def help_id(self) -> str:
        return f"gauge.{self.key}.help"

    @property
    def note_id(self) -> str:
        return f"gauge.{self.key}.note"

    def value(self, reading: Reading, *, windowed: bool) -> float | None:
        """The live (windowed) value, or the whole run's."""
        read = self.window if windowed and self.window is not None else self.run
        return read(reading)

    def formatted(self, reading: Reading, *, windowed: bool, spread: bool = True) -> str:
        """The value as every view writes it (an em dash until there is one), with its spread
        ("1.68× ± 0.12") where the value is the whole run's and its spread is known; `spread`
        False leaves it out (a one-line strip has no room)."""
        value = self.value(reading, windowed=windowed)
        fmt = self.fmt if windowed else self.run_fmt or self.fmt
        text = number(value, fmt) + (self.suffix if value is not None else "")
        whole_run = not windowed or self.window is None
        error = self.spread(reading) if spread and whole_run and value is not None and self.spread else None
        return text if error is None else f"{text} ± {number(error, fmt)}"

    def formatted_watched(self, sample: WatchedInterval | None) -> str:
        """The monitor's value for one poll interval (an em dash before the second poll)."""
        value = self.watched(sample) if self.watched is not None and sample is not None else None
        return number(value, self.fmt) + (self.suffix if value is not None else "")

    def missing(self, reading: Reading) -> str | None:
        """Catalog id of why the engine cannot give this number (None: it can, or no reason applies)."""
        return None if self.missing_key is None else reading.missing.get(self.missing_key)

    def tag_id(self, info: BackendInfo, snap: MetricsSnapshot | None = None) -> str | None:
        """Catalog id of where the number comes from (exact, inferred, simulated…), or None.

        A number the backend does not report per round is "exact totals, rounds inferred" once
        the server's end-of-request totals made the whole run's value exact (`snap.exact_totals`).
        """
        if self.timed and info.origin is not Origin.MEASURED:
            return ORIGIN_TAGS[info.origin]
        if self.exact_key is None:
            return None
        reported = info.exact.get(self.exact_key)
        if reported:
            return "tag.exact"
        if snap is not None and self.exact_key in snap.exact_totals:
            return "tag.exact_totals"
        return "tag.not_reported" if reported is None else "tag.inferred"

    def tags(self, reading: Reading, *, withheld_as: Callable[[Phrase], Phrase] = lambda reason: reason
             ) -> list[tuple[str, Mapping[str, object]]]:
        """Everything the note says about where the number comes from, as (catalog id, values):
        exact / exact totals / inferred / simulated / recorded, then "assumed" or "derived" when a simulator
        preset's fields behind it are, then the value's own source (a baseline, a verify curve),
        then why a measured value is withheld (a baseline taken on a busy machine: kernel/contended.py's
        reason, in the form `withheld_as` gives it for the view's room), then why the
        engine cannot give it or the theory beside it (a remote server times no cost).
        The one place that decides a gauge's provenance: every view writes these in the same place.
        """
        out: list[tuple[str, Mapping[str, object]]] = []
        tag = self.tag_id(reading.info, reading.snap)
        if tag is not None:
            out.append((tag, {}))
        outputs = reading.info.provenance.get("outputs") or {}
        kind = outputs.get(self.provenance_key) if self.provenance_key else None
        if kind in ("assumed", "derived") and self.source is None:
            out.append((f"tag.{kind}", {}))
        if self.source is not None:
            out.append(self.source(reading))
        withheld = self.withheld(reading) if self.withheld is not None else None
        if withheld is not None:
            note = withheld_as(withheld)
            out.append((note.key, note.fields))
        judged = self.judged(reading) if self.judged is not None else None
        if judged is not None:
            out.append(judged)
        why = self.missing(reading)
        if why is not None and (why, {}) not in out:
            out.append((why, {}))
        return out


GAUGE_UNITS: Group[GaugeSpec] = Group("specview.gauges", GaugeSpec, lambda spec: spec.key)


@cache
def gauge_table() -> tuple[GaugeSpec, ...]:
    """Every gauge in table order: the units of the group `specview.gauges` as found (specview's own
    table first), each with an `after` moved to just after the gauge it names (at the end if none has
    that key)."""
    found = units(GAUGE_UNITS)
    table = [spec for spec in found if spec.after is None]
    for spec in found:
        if spec.after is not None:
            keys = [other.key for other in table]
            table.insert(keys.index(spec.after) + 1 if spec.after in keys else len(table), spec)
    return tuple(table)


def __getattr__(name: str) -> tuple[GaugeSpec, ...]:
    """`GAUGES`: the gauge table, found when first read (gauge_table)."""
    if name == "GAUGES":
        return gauge_table()
    raise AttributeError(name)


def gauges(view: str) -> tuple[GaugeSpec, ...]:
    """The gauges one view shows, in table order."""
    return tuple(spec for spec in gauge_table() if view in spec.views)


def position_texts(values: Sequence[float | None], verified: Sequence[int] = (), *,
                   bound: bool = False) -> list[tuple[float | None, str]]:
    """Per-position acceptance as the bars show it: (fraction to two places, its text), with the
    rounds behind each bar where given (the rounds that drafted and verified the position).
    `bound`: the values after position 0 are lower bounds (a monitor's counts of drafts shorter
    than its series), written "≥ 0.71"."""
    counts = [f" ({compact_count(n)})" for n in verified] + [""] * (len(values) - len(verified))
    return [(None if v is None else round(v, 2), _position_value(v, bound and k > 0) + c)
            for k, (v, c) in enumerate(zip(values, counts, strict=False))]


def _position_value(value: float | None, at_least: bool) -> str:
    """One position's acceptance to two places, "≥ " before a lower bound ("—" when unknown)."""
    said = number(value, ".2f")
    return f"≥ {said}" if at_least and value is not None else said


def compact_count(n: int) -> str:
    """A count in at most four characters: 950, 1.2k, 34k, 1.2M."""
    if n < 1000:
        return str(n)
    value, suffix = (n / 1e6, "M") if n >= 1_000_000 else (n / 1e3, "k")
    return f"{value:.1f}{suffix}" if value < 10 else f"{value:.0f}{suffix}"
