"""`specview doctor`'s output: lines of plain words, or one JSON object (the stable schema).

Every value from the server is sanitized before it is printed (boundary/text.py): the method
name, the URL and the evidence's values and sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.text import sanitize
from specview.features.doctor.finding import DoctorFinding
from specview.features.doctor.observe import Observation
from specview.features.doctor.per_request import as_json as per_request_json
from specview.texts.catalog import fill

SCHEMA = 1  # the version of `doctor --json`'s shape
MAX_EVIDENCE_SHOWN = 12  # evidence lines per finding in the text (the JSON has all)

Report = tuple[Observation, Sequence[DoctorFinding]]


def _safe(text: str) -> str:
    return sanitize(text, MAX_SHOWN, one_line=True)


def lines(reports: Sequence[Report], lang: str) -> list[str]:
    out: list[str] = []
    for obs, found in reports:
        head = "doctor.head" if obs.via is None else "doctor.head_prometheus"
        if obs.local:  # two runs of our own, or (a pair llama.cpp refuses) the files alone
            head = "doctor.head_local" if obs.totals is not None else "doctor.head_local_files"
        out.append(fill(head, lang, url=_safe(obs.url), engine=_safe(obs.engine),
                        window=f"{obs.window_s:.3g}", samples=obs.samples, probes=len(obs.probes)))
        for f in found:
            out.append(f"  {said_line(f, lang)}")
            out += [f"    {line}" for line in detail_lines(f, lang)]
        out.append("")
    return out


def said_line(f: DoctorFinding, lang: str) -> str:
    """The finding in words, after its severity as a word (the cue that needs no colour)."""
    return f"[{fill(f'doctor.severity.{f.severity}', lang)}] {_safe(f.said(lang))}"


def detail_lines(f: DoctorFinding, lang: str) -> list[str]:
    """Its confidence, evidence (at most MAX_EVIDENCE_SHOWN) and the flag to change."""
    out = [fill("doctor.confidence", lang, level=fill(f"doctor.level.{f.confidence}", lang), why=f.why(lang))]
    out += [f"· {_safe(e.shown(lang))}" for e in f.evidence[:MAX_EVIDENCE_SHOWN]]
    if len(f.evidence) > MAX_EVIDENCE_SHOWN:
        out.append("· " + fill("doctor.more_evidence", lang, n=len(f.evidence) - MAX_EVIDENCE_SHOWN))
    out += [_safe(line) for line in f.chart_lines(lang)]
    if f.flag:
        out.append(fill("doctor.flag", lang, flag=f.flag))
    return out


def as_json(reports: Sequence[Report], lang: str) -> dict[str, Any]:
    return {"schema": SCHEMA, "lang": lang, "servers": [
        {"url": _safe(obs.url), "engine": _safe(obs.engine),
         "method": None if obs.method is None else _safe(obs.method),
         "window_s": obs.window_s, "samples": obs.samples, "probes": len(obs.probes), "via": obs.via,
         "findings": [_clean(f.to_dict(lang)) for f in found], "per_request": _clean(per_request_json(obs.probes))}
        for obs, found in reports]}


def _clean(value: Any) -> Any:
    """Every string in a finding's dict, sanitized (the evidence carries the server's words)."""
    if isinstance(value, str):
        return _safe(value)
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value
