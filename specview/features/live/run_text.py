"""How the status line and the side panel describe a run, in the chosen language."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.text import sanitize
from specview.kernel.backend import BackendInfo, Note, Pace
from specview.kernel.totals import CrossChecked
from specview.texts.catalog import catalog, fill, text

JOIN = " · "


def pace_text(speed: float, lang: str) -> str:
    """`2×`, or "max speed" for a run that goes flat out."""
    return fill("status.pace", lang, speed=f"{speed:g}") if speed > 0 else text("status.max_speed", lang)


def run_title(info: BackendInfo, lang: str, gamma_now: int | None = None) -> str:
    """`sim · qwen3.6-mtp · γ 3 · T 1 · seed 7 · 2×`; with adaptive drafting the latest γ too."""
    parts = [info.backend, sanitize(info.label, MAX_SHOWN, one_line=True)]
    if info.gamma is not None:
        same = gamma_now in (None, info.gamma)
        parts.append(f"γ {info.gamma}" if same else f"γ {info.gamma} → {gamma_now}")
    parts.append(f"T {info.temperature:g}")
    if info.seed is not None:
        parts.append(fill("status.seed", lang, seed=info.seed))
    if info.pace is not None:
        parts.append(pace_text(info.pace.speed, lang))
    if info.prompt_format is not None:  # "raw completion", "chat template gemma (from the GGUF)"
        parts += note_texts((info.prompt_format,), lang)
    return JOIN.join(parts)


def compare_title(paces: Sequence[Pace | None], lang: str) -> str:
    """`compare · 3 runs`, with the pace the runs share when they share one."""
    title = fill("status.compare", lang, n=len(paces))
    speeds = {pace.speed for pace in paces if pace is not None}
    if len(speeds) == 1:
        title += JOIN + pace_text(speeds.pop(), lang)
    return title


def note_texts(notes: Iterable[Note], lang: str) -> list[str]:
    """Notes in `lang`, their values made safe (a recording or a file from a newer specview may
    name notes this one does not know: those are left out)."""
    known = catalog("en")
    return [fill(f"note.{note.id}", lang, **{k: sanitize(v, MAX_SHOWN, one_line=True) for k, v in note.values.items()})
            for note in notes if f"note.{note.id}" in known]


MAX_CHECK_POSITIONS = 8  # per-position differences a cross-check's sentence spells out


def _signed(n: int) -> str:
    return f"{n:+d}".replace("-", "−") if n else "0"


def check_text(check: CrossChecked, lang: str) -> str:
    """What the cross-check with the server's counters found: agrees (with the counts), or by
    how much each count differs (server − shown)."""
    if check.agrees:
        return fill("note.cross_check_agrees", lang, drafted=check.drafted, accepted=check.accepted)
    drafts, drafted, accepted = (_signed(d) for d in check.differs_by)
    positions = " ".join(_signed(d) for d in check.per_position[:MAX_CHECK_POSITIONS])
    if len(check.per_position) > MAX_CHECK_POSITIONS:
        positions += " …"
    return fill("note.cross_check_differs", lang, drafts=drafts, drafted=drafted, accepted=accepted,
                positions=positions or "—")


def notes_text(info: BackendInfo, lang: str, check: CrossChecked | None = None) -> str:
    """The run's notes in `lang`, then how a local model got its prompt (the status line says it
    too, but a long model name pushes it out of 80 columns), then any text from outside, made
    safe, then what the cross-check of its last request found."""
    parts = note_texts((*info.notes, *(() if info.prompt_format is None else (info.prompt_format,))), lang)
    if info.note:
        parts.append(sanitize(info.note, MAX_SHOWN))
    if check is not None:
        parts.append(check_text(check, lang))
    return "; ".join(parts)
