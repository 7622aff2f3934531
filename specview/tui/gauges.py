"""The gauge table (core/gauges.py) in words: labels, values and notes in the chosen language.

Pure (no widgets, no Textual), so `bench --table` and the help screen use it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from specview.core.gauges import PANE, PANEL, SUMMARY, GaugeSpec, Reading, gauges
from specview.core.summary import leaders
from specview.core.text import number
from specview.texts.catalog import fill, text

NOTE_JOIN = " · "


@dataclass(frozen=True, slots=True)
class GaugeText:
    """One gauge as the side panel shows it."""

    key: str
    label: str
    value: str
    fraction: float | None  # for a bar
    note: str


def note_text(spec: GaugeSpec, reading: Reading, lang: str) -> str:
    """The gauge's note (its theory, its yield…) and where the number comes from."""
    parts = []
    values = spec.note(reading) if spec.note is not None else None
    if values is not None:
        parts.append(fill(spec.note_id, lang, **values))
    tag = spec.tag_id(reading.info)
    if tag is not None:
        parts.append(text(tag, lang))
    return NOTE_JOIN.join(parts)


def panel_texts(reading: Reading, lang: str) -> list[GaugeText]:
    """The live side panel: windowed values, their bars and notes."""
    out = []
    for spec in gauges(PANEL):
        value = spec.value(reading, windowed=True)
        out.append(GaugeText(spec.key, text(spec.label_id, lang), spec.shown(reading, windowed=True),
                             value if spec.bar else None, note_text(spec, reading, lang)))
    return out


def pane_texts(reading: Reading, lang: str) -> list[tuple[str, str]]:
    """A compare pane's gauge line: (short label, windowed value) pairs."""
    return [(text(spec.short_id, lang), spec.shown(reading, windowed=True)) for spec in gauges(PANE)]


@dataclass(frozen=True, slots=True)
class SummaryTexts:
    """The summary table, ready to draw: headers, one row of cells per run, leaders."""

    headers: list[str]  # the run column first
    labels: list[str]
    cells: list[list[str]]
    lead: list[int | None]  # per column: the leading row


def summary_texts(labels: Sequence[str], readings: Sequence[Reading], lang: str) -> SummaryTexts:
    """Each run's whole-run values, with the best run of every column."""
    specs = gauges(SUMMARY)
    lead = leaders(readings)
    return SummaryTexts(
        headers=[text("summary.run", lang), *(text(spec.short_id, lang) for spec in specs)],
        labels=list(labels),
        cells=[[spec.shown(r, windowed=False) for spec in specs] for r in readings],
        lead=[lead[spec.key] for spec in specs],
    )


def position_texts(values: Sequence[float | None]) -> list[tuple[float | None, str]]:
    """Per-position acceptance as the bars show it: (fraction to two places, its text)."""
    return [(None if v is None else round(v, 2), number(v, ".2f")) for v in values]
