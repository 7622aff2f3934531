"""Turn a MetricsSnapshot into the texts the gauges show (pure; no widgets)."""

from __future__ import annotations

from dataclasses import dataclass

from specview.backends.base import BackendInfo
from specview.core.metrics import MetricsSnapshot
from specview.core.theory import best_gamma, speedup
from specview.texts.catalog import text


@dataclass(frozen=True, slots=True)
class GaugeText:
    value: str
    fraction: float | None
    note: str


def _num(value: float | None, fmt: str) -> str:
    return "—" if value is None else format(value, fmt)


def _tag(info: BackendInfo, key: str, lang: str) -> str:
    if key not in info.exact:
        return text("unavailable", lang)
    return text("exact" if info.exact[key] else "inferred", lang)


def gauge_texts(snap: MetricsSnapshot, info: BackendInfo, lang: str = "en") -> dict[str, GaugeText]:
    """Texts for the α, τ, tokens/s, c and speedup gauges."""
    alpha = snap.window_acceptance_rate if snap.window_acceptance_rate is not None else snap.acceptance_rate
    yield_note = "" if snap.draft_yield is None else f"yield {snap.draft_yield:.2f} · "
    theory = "" if snap.expected_tau is None else f"{text('theory', lang)} {snap.expected_tau:.2f} · "
    gamma = round(snap.mean_gamma) if snap.mean_gamma else None
    speed_note, speed_value = "", None
    if snap.acceptance_rate is not None and snap.draft_cost is not None and gamma:
        alpha_all = min(snap.acceptance_rate, 0.999999)
        speed_value = speedup(alpha_all, gamma, snap.draft_cost)
        best_g, best_s = best_gamma(alpha_all, snap.draft_cost)
        speed_note = f"best γ {best_g} → {best_s:.2f}×"
    tps_tag = text("simulated", lang) if info.virtual_clock else _tag(info, "tokens_per_second", lang)
    return {
        "alpha": GaugeText(_num(alpha, ".2f"), alpha, yield_note + _tag(info, "acceptance", lang)),
        "tau": GaugeText(_num(snap.window_tau, ".2f"), None, theory + _tag(info, "tau", lang)),
        "tps": GaugeText(_num(snap.window_tokens_per_second, ".1f"), None, tps_tag),
        "cost": GaugeText(_num(snap.draft_cost, ".3f"), None,
                          text("simulated", lang) if info.virtual_clock else _tag(info, "draft_cost", lang)),
        "speedup": GaugeText("—" if speed_value is None else f"{speed_value:.2f}×", None, speed_note),
    }
