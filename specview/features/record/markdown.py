"""A run as a Markdown report: settings, provenance, gauges, acceptance by position, the marked text.

The text keeps the marks that do not need colour (MARKS, kernel/events.py): ~~rejected~~, ▸corrected,
bonus⁺, and the drafts after a rejection, never verified, as discardedˣ. Everything
that came from outside (token text, model names, the prompt, header values) is sanitised and
escaped, so a token cannot add a heading, a link, HTML or a table cell of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from specview.boundary.text import number, sanitize
from specview.kernel.backend import BackendInfo
from specview.kernel.events import MARKS, Round, TokenEvent, TokenStatus
from specview.kernel.gauges import PANEL, Reading, gauges
from specview.kernel.metrics_snapshot import MetricsSnapshot
from specview.report.display_order import displayed
from specview.texts.catalog import catalog, fill, text

_INLINE = re.compile(r"([\\`*_~\[\]#|<>!])")
_LINE_START = re.compile(r"^(\s*)([-+=]|\d+[.)])", re.MULTILINE)


def escape(value: object) -> str:
    """Untrusted text made inert inside a Markdown line: controls visible, markup characters escaped."""
    return _INLINE.sub(r"\\\1", sanitize(str(value)).replace("&", "&amp;"))


def _block(body: str) -> str:
    """Escaped text made inert as whole lines too: nothing at a line's start begins a list or a heading."""
    return _LINE_START.sub(r"\1\\\2", body)


def _cell(value: object) -> str:
    """A table cell: escaped, on one line."""
    return escape("—" if value is None or value == "" else value).replace("\n", " ")


def marked_text(tokens: Iterable[TokenEvent]) -> str:
    """The stream with its marks, as Markdown (whitespace kept outside the marks)."""
    out: list[str] = []
    for token in tokens:
        body = escape(token.text)
        core = body.strip()
        if not core:
            out.append(body)
            continue
        lead, trail = body[: len(body) - len(body.lstrip())], body[len(body.rstrip()):]
        if token.status is TokenStatus.REJECTED:
            core = f"~~{core}~~"
        pre, post = MARKS.get(token.status, ("", ""))
        out.append(lead + pre + core + post + trail)
    return _block("".join(out))


def markdown_report(header: Mapping[str, Any], info: BackendInfo, snap: MetricsSnapshot, rounds: Sequence[Round],
                    *, lang: str = "en", recording: str | None = None, dropped_rounds: int = 0) -> str:
    """The whole report. `header` is the recording's header (provenance); `rounds` the text shown."""
    t = lang
    lines = [f"# {text('report.title', t)}: {escape(info.label)}", ""]

    lines += [f"## {text('report.settings', t)}", "", "| | |", "|---|---|"]
    settings = header.get("settings") if isinstance(header.get("settings"), dict) else {}
    rows: list[tuple[str, object]] = [
        ("backend", info.backend), ("preset", info.preset), ("model", info.model), ("draft", info.draft),
        ("γ", info.gamma), ("T", f"{info.temperature:g}"), ("seed", info.seed),
        (text("report.prompt", t), header.get("prompt")),
    ]
    if isinstance(settings, dict) and settings.get("url"):
        rows.append(("url", settings["url"]))
    lines += [f"| {_cell(k)} | {_cell(v)} |" for k, v in rows]

    lines += ["", f"## {text('report.provenance', t)}", ""]
    made = fill("report.made_by", t, version=escape(header.get("specview", "?")),
                created=escape(header.get("created", "?")))
    lines.append(f"- {made}")
    if recording:
        lines.append(f"- {text('report.recording', t)}: `{sanitize(recording).replace('`', '')}` "
                     f"({escape(header.get('format', '?'))} v{escape(header.get('version', '?'))})")
    reading = Reading.of(snap, info)
    tags = [(text(spec.short_id, t), spec.tag_id(info, snap)) for spec in gauges(PANEL)]
    lines.append(f"- {text('report.signals', t)}: " + escape(", ".join(f"{name} {text(tag, t)}"
                                                                        for name, tag in tags if tag)))
    known = catalog("en")
    for about in info.notes:
        if f"note.{about.id}" in known:
            lines.append(f"- {escape(fill(f'note.{about.id}', t, **about.values)).replace(chr(10), ' ')}")
    if info.note:
        lines.append(f"- {escape(info.note).replace(chr(10), ' ')}")
    if dropped_rounds:
        lines.append(f"- {fill('report.dropped', t, dropped=dropped_rounds, kept=len(rounds))}")

    counts = fill("report.counts", t, rounds=snap.rounds, tokens=snap.tokens, drafted=snap.drafted,
                  accepted=snap.accepted)
    lines += ["", f"## {text('report.gauges', t)}", "", counts, "", "| | | |", "|---|---:|---|"]
    for spec in gauges(PANEL):  # the side panel's gauges, over the whole run
        if spec.optional and spec.value(reading, windowed=False) is None:
            continue  # a row this kind of run does not have (the panel hides it too)
        values = spec.note(reading) if spec.note is not None else None
        why = spec.missing(reading)  # a "—" (or a theory) the engine cannot give: say why
        theory = fill(spec.note_id, t, **values) if values else "" if why is None else text(why, t)
        value = spec.formatted(reading, windowed=False)
        lines.append(f"| {_cell(text(spec.label_id, t))} | {value} | {escape(theory)} |")

    lines += ["", f"## {text('report.by_position', t)}", ""]
    if snap.per_position_acceptance:
        lines += [f"| {text('report.position', t)} | {text('report.verified', t)} | "
                  f"{text('report.acceptance', t)} |", "|---:|---:|---:|"]
        for k, (rate, verified) in enumerate(zip(snap.per_position_acceptance, snap.per_position_verified,
                                                 strict=False), start=1):
            lines.append(f"| {k} | {verified} | {number(rate, '.3f')} |")
    else:
        lines.append(text("report.no_drafts", t))

    lines += ["", f"## {text('report.text', t)}", "", text("report.legend", t), "", "---", ""]
    lines.append(marked_text(displayed(rounds)))
    return "\n".join(lines).rstrip("\n") + "\n"
