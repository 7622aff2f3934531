"""What headless fleet watch prints for each poll: JSON Lines, CSV, or lines for a person.

Every number says its window: each JSON object has `window_s` (the poll's window, which every
rate and α is over), `alert_window_s` (what the alerts and the outlier test read) and, per
instance, the `window_s` of its own last sample. Strings that came from a server (the instance,
its method, an error) are sanitized before they are written anywhere; a CSV cell that would
start a spreadsheet formula is quoted with a leading apostrophe. An instance is written by its
shown name, unique in every poll (model/fleet_keys.py); JSON adds the labels it is known by, and
the notes its samples brought with this poll (each said once).
"""

from __future__ import annotations

import csv
import io
import time
from dataclasses import asdict
from typing import Any

from specview.boundary.csv_cell import csv_cell
from specview.boundary.text import number, sanitize
from specview.features.live.run_text import note_texts
from specview.features.watch.command.load_output import BASELINE_COLUMNS, LOAD_COLUMNS, load_csv_rows, load_record
from specview.features.watch.model import WatchSample
from specview.features.watch.model.alert_rules import accept_length
from specview.features.watch.model.fleet import Alert, FleetSnapshot, InstanceRow, State, said_in
from specview.kernel.backend import Note
from specview.texts.catalog import Phrase, fill, text

MAX_FIELD = 300  # characters of one untrusted string in any output

CSV_COLUMNS = ("time", "row", "instance", "engine", "method", "state", "alpha", "acceptance_rate", "draft_yield",
               "accept_length", "draft_share", "drafts_per_s", "draft_tokens_per_s", "tokens_per_s", "running",
               "per_position_acceptance", "per_position_marginal", "window_s", "outlier", "alerts",
               *LOAD_COLUMNS, *BASELINE_COLUMNS)
# the numbers of a row, in CSV_COLUMNS' order from "alpha" to "running" (the per-position series follow)
CSV_NUMBERS = CSV_COLUMNS[CSV_COLUMNS.index("alpha"):CSV_COLUMNS.index("running") + 1]


def clean(value: str | None) -> str | None:
    return None if value is None else sanitize(value, MAX_FIELD, one_line=True)


def _values(alert: Alert, lang: str) -> dict[str, Any]:
    """An alert's values as written: texts in `lang`, sanitized (numbers as they are)."""
    return {k: clean(said_in(v, lang)) if isinstance(v, str | Phrase) else v for k, v in alert.values.items()}


def iso(t: float | None) -> str | None:
    """Wall-clock seconds as ISO 8601 UTC, to the millisecond."""
    if t is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def numbers(sample: WatchSample | None) -> dict[str, Any]:
    """The numbers of one window, None where there is none: the ratios under the direct watch's
    keys (`WatchSample.ratios`: α and the engines' acceptance rate apart, the per-position series
    with their basis), drafts/s beside draft tokens/s, and the counts."""
    s = sample
    if s is None:  # every key, each None (the series empty)
        return {**WatchSample(0.0, 0.0, 0, 0, 0, (), None, None).ratios(), "accept_length": None,
                "drafts_per_s": None, "draft_tokens_per_s": None, "accepted_per_s": None, "tokens_per_s": None,
                "running": None, "drafts": None, "drafted": None, "accepted": None, "window_s": None, "reset": False,
                "counters_update": None}
    return {
        **s.ratios(), "accept_length": _r(accept_length(s)),
        "drafts_per_s": _r(s.drafts_per_s, 2), "draft_tokens_per_s": _r(s.draft_tokens_per_s, 2),
        "accepted_per_s": _r(s.accepted_per_s, 2), "tokens_per_s": _r(s.tokens_per_s, 2),
        "running": s.active, "drafts": s.drafts, "drafted": s.draft_tokens, "accepted": s.accepted,
        "window_s": _r(s.dt, 3), "reset": s.reset, "counters_update": s.cadence,
    }


def _series(values: list[float | None]) -> str:
    """A per-position series in one CSV cell: the values joined by ";" ("" for none)."""
    return ";".join("" if v is None else f"{v:g}" for v in values)


def alert_record(alert: Alert, lang: str, window_s: float | None = None) -> dict[str, Any]:
    """One alert as JSON (each line of --json; --on-alert's standard input)."""
    record: dict[str, Any] = {"kind": alert.kind.value, "instance": clean(alert.instance), "since": iso(alert.since),
                              "values": _values(alert, lang),
                              "text": alert_text(alert, lang)}
    if window_s is not None:
        record["window_s"] = window_s
    return record


def alert_text(alert: Alert, lang: str) -> str:
    return fill(f"fleet.alert.{alert.kind.value}", lang, **_values(alert, lang))


def row_record(row: InstanceRow, lang: str) -> dict[str, Any]:
    return {"instance": clean(row.instance), "engine": row.engine, "method": clean(row.method), "gamma": row.gamma,
            "state": row.state.value, "since": iso(row.since), **numbers(row.window), "outlier": row.outlier,
            "alerts": [alert_record(a, lang) for a in row.alerts], "error": clean(said_in(row.error, lang)),
            "missing": [clean(m) for m in row.missing], "labels": {clean(k): clean(v) for k, v in row.key},
            "notes": [_note_record(n, lang) for n in row.new_notes], "by_load": load_record(row)}


def _note_record(note: Note, lang: str) -> dict[str, Any]:
    """One note as JSON: its id, its values (sanitized) and its text in `lang`."""
    said = note_texts((note,), lang)
    return {"id": note.id, "values": {k: clean(v) for k, v in note.values.items()}, "text": said[0] if said else None}


def snapshot_record(snap: FleetSnapshot, lang: str) -> dict[str, Any]:
    """One poll as one JSON object (`--json` writes one per line); with `--on-alert`, where its runs
    stand after this poll (`on_alert`: started, running, waiting, coalesced, timed_out)."""
    up = sum(row.state is not State.DOWN for row in snap.rows)
    record = {"time": iso(snap.time), "unix_time": round(snap.time, 3), "window_s": round(snap.window_s, 3),
              "alert_window_s": snap.alert_window_s, "retention_s": snap.retention_s,
              "instances": [row_record(row, lang) for row in snap.rows],
              "totals": {"up": up, "instances": len(snap.rows), **numbers(snap.totals)}}
    if snap.hooks is not None:
        record["on_alert"] = asdict(snap.hooks)
    return record


def csv_header() -> str:
    return _csv_line(CSV_COLUMNS)


def csv_rows(snap: FleetSnapshot) -> str:
    """One CSV line per instance, then the fleet's totals (`row` says which)."""
    when = iso(snap.time)
    lines = []
    for row in snap.rows:
        n = numbers(row.window)
        lines.append(_csv_line((when, "instance", clean(row.instance), row.engine, clean(row.method), row.state.value,
                                *_csv_numbers(n), n["window_s"], int(row.outlier),
                                ";".join(a.kind.value for a in row.alerts))))
    t = numbers(snap.totals)
    lines.append(_csv_line((when, "fleet", "", "", "", "", *_csv_numbers(t), round(snap.window_s, 3), "",
                            ";".join(sorted({a.kind.value for a in snap.alerts})))))
    lines += [_csv_line(values) for values in load_csv_rows(snap, when, CSV_COLUMNS)]
    return "".join(lines)


def _csv_numbers(n: dict[str, Any]) -> tuple[object, ...]:
    return (*(n[k] for k in CSV_NUMBERS), _series(n["per_position_acceptance"]), _series(n["per_position_marginal"]))


def _csv_line(values: tuple[object, ...]) -> str:
    out = io.StringIO()
    values = values + ("",) * (len(CSV_COLUMNS) - len(values))  # the load columns, on rows of other kinds
    csv.writer(out, lineterminator="\n").writerow([csv_cell(v) for v in values])
    return out.getvalue()


def human_lines(snap: FleetSnapshot, lang: str) -> list[str]:
    """A heading, one line per instance, the totals, and a line per alert."""
    up = sum(row.state is not State.DOWN for row in snap.rows)
    lines = [fill("fleet.heading", lang, time=time.strftime("%H:%M:%S", time.localtime(snap.time)), up=up,
                  n=len(snap.rows), window=f"{snap.window_s:.3g}", alert_window=f"{snap.alert_window_s:g}")]
    for row in snap.rows:
        lines.append("  " + _numbers_line(clean(row.instance) or "", row, row.window, lang))
        lines += [f"    {said}" for said in note_texts(row.new_notes, lang)]
    lines.append("  " + _numbers_line(text("fleet.totals", lang), None, snap.totals, lang))
    lines += alert_lines(snap, lang)
    return lines


def alert_lines(snap: FleetSnapshot, lang: str) -> list[str]:
    return [f"  ! {clean(a.instance) or text('fleet.totals', lang)}: {alert_text(a, lang)}" for a in snap.alerts]


def _numbers_line(name: str, row: InstanceRow | None, s: WatchSample | None, lang: str) -> str:
    parts = [name]
    if row is not None:
        engine = " ".join(p for p in (row.engine, clean(row.method)) if p)
        parts += [engine or "—", text(f"fleet.state.{row.state.value}", lang)]
        if row.outlier:
            parts.append(text("fleet.outlier", lang))
        if row.state is State.DOWN and row.error:
            parts.append(clean(said_in(row.error, lang)) or "")
            return " · ".join(parts)
    n = numbers(s)
    parts.append(fill("fleet.numbers", lang, alpha=number(n["alpha"], ".2f"),
                      yield_=number(n["acceptance_rate"], ".2f"), length=number(n["accept_length"], ".2f"),
                      share=number(n["draft_share"], ".2f"), drafts=number(n["drafts_per_s"], ".1f"),
                      drafted=number(n["draft_tokens_per_s"], ".1f"), tps=number(n["tokens_per_s"], ".1f"),
                      running=number(n["running"], "g")))
    return " · ".join(parts)
