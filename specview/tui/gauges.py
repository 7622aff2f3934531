"""The gauge table (kernel/gauges.py) in words: labels, values and notes in the chosen language.

Pure (no widgets, no Textual), so `bench --table` and the help screen use it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from specview.features.watch.model import WatchSample
from specview.features.watch.model.invariants import Violation
from specview.kernel.backend import Origin
from specview.kernel.events import Basis
from specview.kernel.gauges import PANE, PANEL, SUMMARY, WATCH, GaugeSpec, Reading, gauges
from specview.report.busy_note import short_note
from specview.report.leaders import leaders
from specview.report.run_names import distinct_names
from specview.texts.catalog import FALLBACK, catalog, fill, text
from specview.widgets.stat_gauge import NOTE_JOIN
from specview.widgets.summary_table import LABEL_WIDTH


@dataclass(frozen=True, slots=True)
class GaugeText:
    """One gauge as the side panel shows it."""

    key: str
    value: str
    fraction: float | None  # for a bar
    note: str
    present: bool = True  # False: an optional gauge without a value (its row is hidden)


def note_text(spec: GaugeSpec, reading: Reading, lang: str) -> str:
    """Where the number comes from (exact, simulated, assumed, its baseline…), then its note
    (the whole run's value beside its theory, the yield…): the same place in every view."""
    parts = [fill(tag, lang, **values) for tag, values in spec.tags(reading, withheld_as=short_note)]
    values = spec.note(reading) if spec.note is not None else None
    if values is not None:
        parts.append(fill(spec.note_id, lang, **values))
    return NOTE_JOIN.join(parts)


def panel_texts(reading: Reading, lang: str) -> list[GaugeText]:
    """The live side panel: windowed values, their bars and notes."""
    out = []
    for spec in gauges(PANEL):
        value = spec.value(reading, windowed=True)
        out.append(GaugeText(spec.key, spec.formatted(reading, windowed=True),
                             value if spec.bar else None, note_text(spec, reading, lang),
                             value is not None or not spec.optional))
    return out


def watch_texts(sample: WatchSample | None, lang: str) -> list[GaugeText]:
    """The monitor's gauges for one poll interval (`specview watch`)."""
    out = []
    for spec in gauges(WATCH):
        value = spec.watched(sample) if spec.watched is not None and sample is not None else None
        values = spec.watched_note(sample) if spec.watched_note is not None and sample is not None else None
        # the monitor's interval is one span for value and note: its own template where the live one
        # sets a whole-run value beside a windowed one
        own = f"gauge.{spec.key}.watch_note"
        note = fill(own if own in catalog(FALLBACK) else spec.note_id, lang, **values) if values is not None else ""
        out.append(GaugeText(spec.key, spec.formatted_watched(sample),
                             value if spec.bar else None, note))
    return out


def violation_text(v: Violation, lang: str) -> str:
    """`accepted ≤ drafted (interval: 31 accepted of 30 drafted)` in the user's language."""
    where = text(f"watch.where.{v.where}", lang)
    return f"{text(f'watch.rule.{v.rule}', lang)} ({where}: {fill(f'watch.broken.{v.rule}', lang, **v.values)})"


def pane_texts(reading: Reading, lang: str, view: str = PANE) -> list[tuple[str, str]]:
    """A compare pane's gauge line (or the live view's strip: `view=STRIP`): (short label, windowed value)."""
    # a pane's line and the strip are one line of several gauges: no room for a spread there
    return [(text(spec.short_id, lang), spec.formatted(reading, windowed=True, spread=False)) for spec in gauges(view)]


@dataclass(frozen=True, slots=True)
class SummaryTexts:
    """The summary table, ready to draw: headers, one row of cells per run, leaders."""

    headers: list[str]  # the run column first
    labels: list[str]
    cells: list[list[str]]
    lead: list[int | None]  # per column: the leading row
    drop: list[int] = field(default_factory=list)  # value columns to leave out, first to last, where rows would wrap


# The compare summary where the terminal is narrow (80 columns): value columns are left out, first
# to last, until every row is one line. First what derives from other columns or says least about
# which run is better (α's drop with context, theory τ, the verify ratio v, the draft cost c), then
# the origin (the panes' gauge lines and F1 say where numbers come from), tokens/s, the speedup, τ.
# α and the run's name always stay.
SUMMARY_DROP = ("context_drop", "expected_tau", "verify_ratio", "draft_cost", "origin", "tokens_per_second",
                "speedup", "tau")


def summary_texts(labels: Sequence[str], readings: Sequence[Reading], lang: str) -> SummaryTexts:
    """Each run's whole-run values, with the best run of every column, then where they come from."""
    specs = gauges(SUMMARY)
    lead = leaders(readings)
    keys = [*(spec.key for spec in specs), "origin"]
    return SummaryTexts(
        headers=[text("summary.run", lang), *(text(spec.short_id, lang) for spec in specs), text("origin.title", lang)],
        labels=distinct_names(labels, LABEL_WIDTH),  # what tells the runs apart, not what they share
        cells=[[*(spec.formatted(r, windowed=False) for spec in specs), origin_text(r, lang)] for r in readings],
        lead=[*(lead[spec.key] for spec in specs), None],
        drop=[keys.index(key) for key in SUMMARY_DROP if key in keys],
    )


ORIGIN_WORDS = {Origin.MEASURED: "origin.measured", Origin.SIMULATED: "origin.simulated",
                Origin.RECORDED: "origin.recorded"}
# a baseline that is not the run's own measurement or model is named in the summary's origin column
BASIS_WORDS = {Basis.GIVEN: "origin.given", Basis.PAIRED: "origin.paired", Basis.PLAIN_ROUNDS: "origin.plain_rounds",
               Basis.DEFINITION: "spread.origin_plain"}


def origin_text(reading: Reading, lang: str) -> str:
    """A run's numbers in a few words: measured, simulated or recorded; assumed where a
    preset's assumptions are behind them; the speedup's baseline when it is not the run's own;
    and "c, v not given" where its engine times no cost."""
    info, over = reading.info, reading.over
    words = [ORIGIN_WORDS[info.origin]]
    outputs = info.provenance.get("outputs") or {}
    if "assumed" in outputs.values():
        words.append("origin.assumed")
    basis = over.speedup_basis
    if basis is None:
        words.append("origin.no_baseline")
    elif basis in BASIS_WORDS:
        words.append(BASIS_WORDS[basis])
    if reading.missing:  # the "—" of c and v in its row: the engine does not give them
        words.append("measured.origin.untimed")
    return " · ".join(text(word, lang) for word in dict.fromkeys(words))


def missing_texts(reading: Reading, view: str, lang: str) -> list[str]:
    """Why the view's "—" cells of this run are "—" where the engine cannot give them:
    `c —: a remote server does not time its drafting` (the tables have no room for notes), or
    where a measured value is withheld (a baseline taken on a busy machine)."""
    out = []
    for spec in gauges(view):
        why = spec.missing(reading)
        # only a gauge whose own value is missing (the speedup's reason is about its theory note)
        if why is not None and spec.missing_key == spec.key and spec.value(reading, windowed=False) is None:
            out.append(fill("measured.table.missing", lang, gauge=text(spec.short_id, lang), why=text(why, lang)))
        withheld = spec.withheld(reading) if spec.withheld is not None else None
        if withheld is not None:
            out.append(fill("measured.table.missing", lang, gauge=text(spec.short_id, lang), why=withheld))
    return out


# plain tokens carry no mark (like accepted ones; the help says so): every mark and style is here
LEGEND = ("accepted", "rejected", "corrected", "bonus", "discarded", "undecided", "separator", "inferred")
# a tree run has no discarded chain drafts (what hangs below its rejected token is a lost branch): its
# legend names the branches' mark in their place, so it keeps its two lines at 80×24
TREE_LEGEND = tuple("lost" if kind == "discarded" else kind for kind in LEGEND)
RISE = 0.03  # a per-position acceptance this much above the one before it is a rise worth explaining
RISE_SAMPLES = 200  # verifications needed at a position before its value counts
RISE_SIGMAS = 3.0  # ... and the rise must stand out of the sampling noise by this many standard errors


def legend_entries(lang: str, *, tree: bool = False) -> list[tuple[str, str]]:
    """The legend's entries: (kind, word in `lang`), every mark and style the stream uses (`tree`:
    a tree run's)."""
    return [(kind, text(f"token.legend.{kind}", lang)) for kind in (TREE_LEGEND if tree else LEGEND)]


def rises(values: Sequence[float | None], verified: Sequence[int]) -> bool:
    """Whether per-position acceptance rises with distance somewhere (on enough verifications).

    Conditional acceptance can: a deeper draft is judged only when every draft before it
    passed, on the easier stretches. The screen says so when it happens.
    """
    known = [(v, n) for v, n in zip(values, verified, strict=False) if v is not None and n >= RISE_SAMPLES]
    return any(b - a > max(RISE, RISE_SIGMAS * _standard_error(a, na, b, nb)) for (a, na), (b, nb) in pairwise(known))


def _standard_error(a: float, na: int, b: float, nb: int) -> float:
    """Standard error of the difference of two acceptance rates (binomial)."""
    return float((a * (1 - a) / na + b * (1 - b) / nb) ** 0.5)
