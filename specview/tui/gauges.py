"""Turn a MetricsSnapshot into the texts the gauges show (pure; no widgets)."""

from __future__ import annotations

from dataclasses import dataclass

from specview.core.backend import BackendInfo
from specview.core.metrics import MetricsSnapshot
from specview.core.overlay import overlay
from specview.core.text import number
from specview.texts.catalog import text


@dataclass(frozen=True, slots=True)
class GaugeText:
    value: str
    fraction: float | None
    note: str


def _tag(info: BackendInfo, key: str, lang: str) -> str:
    if info.virtual_clock and key in ("tokens_per_second", "draft_cost"):
        return text("recorded" if info.backend == "replay" else "simulated", lang)
    if key not in info.exact:
        return text("unavailable", lang)
    return text("exact" if info.exact[key] else "inferred", lang)


def gauge_texts(snap: MetricsSnapshot, info: BackendInfo, lang: str = "en") -> dict[str, GaugeText]:
    """Texts for the α, τ, tokens/s, c and speedup gauges, with the theory overlay in the notes."""
    over = overlay(snap)
    theory = text("theory", lang)
    alpha = snap.window_acceptance_rate if snap.window_acceptance_rate is not None else snap.acceptance_rate
    alpha_note = "" if snap.draft_yield is None else f"yield {snap.draft_yield:.2f} · "
    tau_note = ""
    if over.expected_tau is not None and over.tau_gap is not None:
        tau_note = f"{theory} {over.expected_tau:.2f} (Δ {over.tau_gap:+.2f}) · "
    speed_note = ""
    if over.speedup_theory is not None:
        speed_note = f"{theory} {over.speedup_theory:.2f}× · best γ {over.best_gamma} → {over.best_speedup:.2f}×"
    shown_speedup = over.speedup_shown
    return {
        "alpha": GaugeText(number(alpha, ".2f"), alpha, alpha_note + _tag(info, "acceptance", lang)),
        "tau": GaugeText(number(snap.window_tau, ".2f"), None, tau_note + _tag(info, "tau", lang)),
        "tps": GaugeText(number(snap.window_tokens_per_second, ".1f"), None, _tag(info, "tokens_per_second", lang)),
        "cost": GaugeText(number(snap.draft_cost, ".3f"), None, _tag(info, "draft_cost", lang)),
        "speedup": GaugeText(number(shown_speedup, ".2f") + ("×" if shown_speedup is not None else ""), None,
                             speed_note),
    }
