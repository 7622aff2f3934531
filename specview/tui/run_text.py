"""How the status line and the side panel describe a run, in the chosen language."""

from __future__ import annotations

from collections.abc import Sequence

from specview.core.backend import BackendInfo, Pace
from specview.core.bounds import MAX_SHOWN
from specview.core.text import sanitize
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
    return JOIN.join(parts)


def compare_title(paces: Sequence[Pace | None], lang: str) -> str:
    """`compare · 3 runs`, with the pace the runs share when they share one."""
    title = fill("status.compare", lang, n=len(paces))
    speeds = {pace.speed for pace in paces if pace is not None}
    if len(speeds) == 1:
        title += JOIN + pace_text(speeds.pop(), lang)
    return title


def notes_text(info: BackendInfo, lang: str) -> str:
    """The run's notes in `lang` (a recording from a newer specview may name notes this one
    does not know: those are left out), then any text from outside, made safe."""
    known = catalog("en")
    parts = [fill(f"note.{note.id}", lang, **{k: sanitize(v, MAX_SHOWN, one_line=True) for k, v in note.values.items()})
             for note in info.notes if f"note.{note.id}" in known]
    if info.note:
        parts.append(sanitize(info.note, MAX_SHOWN))
    return "; ".join(parts)
