"""specview's own gauge table: the built-in units of the group `specview.gauges` (kernel/gauges.py).

The table's order is the order every view shows its gauges in. A further gauge is one module in
this package (or a plugin's) defining a GaugeSpec whose `after` names the gauge it follows; its
texts go beside it or in texts/gauges.<lang>.toml.
"""

from __future__ import annotations

from specview.boundary.text import number
from specview.kernel.backend import Exact
from specview.kernel.events import Basis
from specview.kernel.gauges import BENCH, PANE, PANEL, SPARK, STRIP, SUMMARY, WATCH, GaugeSpec, Reading
from specview.kernel.watched_interval import WatchedInterval
from specview.texts.catalog import Phrase


def _window_alpha(r: Reading) -> float | None:
    snap = r.snap
    return snap.window_acceptance_rate if snap.window_acceptance_rate is not None else snap.acceptance_rate


def _alpha_note(r: Reading) -> dict[str, str] | None:
    """The whole run's α (the value shows the window) and its yield, over the same span."""
    snap = r.snap
    if snap.acceptance_rate is None or snap.draft_yield is None:
        return None
    return {"run": f"{snap.acceptance_rate:.2f}", "yield": f"{snap.draft_yield:.2f}"}


def _tau_note(r: Reading) -> dict[str, str] | None:
    """The whole run's τ beside the theory for the whole run (the value shows the window)."""
    over = r.over
    if over.expected_tau is None or over.tau_gap is None or over.tau is None:
        return None
    return {"run": f"{over.tau:.2f}", "theory": f"{over.expected_tau:.2f}", "gap": f"{over.tau_gap:+.2f}"}


BASELINE_IDS = {Basis.MEASURED: "basis.measured", Basis.ASSUMED: "basis.assumed", Basis.GIVEN: "basis.given",
                Basis.PAIRED: "basis.paired", Basis.PLAIN_ROUNDS: "basis.plain_rounds",
                Basis.DEFINITION: "spread.plain_run"}


def _with_spread(value: float | None, spread: float | None, fmt: str = ".1f") -> str:
    """`27.9 ± 1.2`, or the value alone where its spread is unknown."""
    return number(value, fmt) + ("" if value is None or spread is None else f" ± {number(spread, fmt)}")


def _speedup_source(r: Reading) -> tuple[str, dict[str, str]]:
    """What the speedup is measured against: plain decoding's tokens/s (± its spread) and where it
    comes from; for a plain run, 1× by definition, with its tokens/s beside the calibrated ones."""
    over, snap = r.over, r.snap
    if over.speedup_basis is None:
        return "basis.none", {}
    plain = _with_spread(over.plain_tokens_per_second, over.plain_tokens_per_second_spread)
    if over.speedup_basis is Basis.DEFINITION:
        run = _with_spread(snap.tokens_per_second, snap.tokens_per_second_spread)
        return BASELINE_IDS[Basis.DEFINITION], {"plain": plain, "run": run}
    return BASELINE_IDS.get(over.speedup_basis, "basis.none"), {"plain": plain}


def _speedup_judged(r: Reading) -> tuple[str, dict[str, str]] | None:
    """"No difference beyond noise" when 1× lies within the measured speedup ± 2 standard errors
    (Overlay.speedup_verdict); nothing where there is nothing to judge."""
    verdict = r.over.speedup_verdict
    return None if verdict is None or verdict.beyond_noise else ("verdict.speedup.within", {})


def _verify_source(r: Reading) -> tuple[str, dict[str, str]]:
    """The verify-cost curve k = 1 … γ+1 as a sparkline, and whether it was measured or assumed."""
    cal = r.snap.calibration
    if cal is None or not cal.verify_costs_s:
        return r.missing.get("verify_ratio", "verify.none"), {}
    costs = cal.verify_costs_s
    top = max(costs)
    curve = "".join(SPARK[min(len(SPARK) - 1, int(c / top * (len(SPARK) - 1) + 0.5))] for c in costs)
    kind = "verify.measured" if cal.basis is Basis.MEASURED else "verify.assumed"
    return kind, {"curve": curve, "k": str(len(costs)), "ms": f"{1000 * costs[0]:.1f}"}


def _speedup_note(r: Reading) -> dict[str, str] | None:
    over = r.over
    if over.speedup_theory is None or over.best_speedup is None:
        return None
    return {"theory": f"{over.speedup_theory:.2f}", "gamma": str(over.best_gamma),
            "best": f"{over.best_speedup:.2f}"}


def _gamma(r: Reading) -> float | None:
    return r.info.gamma


def _context_drop(r: Reading) -> float | None:
    """α of the first bucket of context position minus the latest's (kernel/context_acceptance.py)."""
    decay = None if r.snap.context is None else r.snap.context.decay()
    return None if decay is None else decay.drop


def _gamma_auto(r: Reading) -> float | None:
    """The γ `--gamma auto` chose last (None: a fixed γ)."""
    choice = r.snap.gamma_choice
    return None if choice is None else choice.gamma


def _gamma_auto_note(r: Reading) -> dict[str, str] | None:
    """Why: the expected speedup at the chosen γ beside the next best ones (kernel/gamma_choice.py)."""
    choice = r.snap.gamma_choice
    if choice is None or choice.expected is None:
        return None
    return {"gamma": str(choice.gamma), "expected": f"{choice.expected:.2f}", "others": choice.others()}


def _what_if(r: Reading) -> float | None:
    """The share of a local chain run's rejections at which a width-3 tree would have had the
    target's token among its candidates (kernel/what_if.py); None for any other run."""
    what_if = r.snap.what_if
    return None if what_if is None else what_if.share(3)


def _what_if_note(r: Reading) -> dict[str, str] | None:
    what_if = r.snap.what_if
    if what_if is None or not what_if.rejected:
        return None
    return {"width2": str(what_if.width2), "width3": str(what_if.width3), "rejected": str(what_if.rejected)}


def _what_if_source(r: Reading) -> tuple[str, dict[str, str]]:
    """Where the what-if comes from: q's ranks at the rejections of the rounds counted."""
    what_if = r.snap.what_if
    rounds = "0" if what_if is None else str(what_if.rounds)
    greedy = r.info.temperature <= 0
    return ("gauge.what_if.basis_greedy" if greedy else "gauge.what_if.basis_sampled"), {"rounds": rounds}


def _runs_only(r: Reading) -> float | None:
    """A monitor gauge has no value for a run of ours."""
    return None


def _watched_yield(s: WatchedInterval) -> dict[str, object] | None:
    """The yield beside α, and what α's verified drafts rest on (the position series or the counts)."""
    if s.draft_yield is None:
        return None
    basis = Phrase(f"measured.alpha_basis.{s.alpha_basis}") if s.alpha_basis else Phrase("measured.alpha_basis.none")
    return {"yield": f"{s.draft_yield:.2f}", "basis": basis}


GAUGES: tuple[GaugeSpec, ...] = (
    GaugeSpec("gamma", _gamma, "", frozenset({BENCH})),
    GaugeSpec("gamma_auto", _gamma_auto, "", frozenset({BENCH}), note=_gamma_auto_note),
    GaugeSpec("temperature", lambda r: r.info.temperature, "g", frozenset({BENCH})),
    GaugeSpec("rounds", lambda r: r.snap.rounds, "", frozenset({BENCH})),
    GaugeSpec("draft_tokens_per_second", _runs_only, ".1f", frozenset({WATCH}),
              watched=lambda s: s.draft_tokens_per_s),
    GaugeSpec("accepted_per_second", _runs_only, ".1f", frozenset({WATCH}), watched=lambda s: s.accepted_per_s),
    GaugeSpec("alpha", lambda r: r.snap.acceptance_rate, ".2f",
              frozenset({PANEL, PANE, STRIP, SUMMARY, BENCH, WATCH}),
              window=_window_alpha, run_fmt=".3f", higher_is_better=True, bar=True, exact_key=Exact.ACCEPTANCE,
              note=_alpha_note, watched=lambda s: s.alpha, watched_note=_watched_yield, provenance_key="acceptance"),
    GaugeSpec("mean_accepted_length", _runs_only, ".2f", frozenset({WATCH}),
              watched=lambda s: s.mean_accepted_length),
    GaugeSpec("tau", lambda r: r.snap.tau, ".2f", frozenset({PANEL, PANE, STRIP, SUMMARY, BENCH}),
              window=lambda r: r.snap.window_tau, higher_is_better=True, exact_key=Exact.TAU, note=_tau_note,
              provenance_key="tau"),
    GaugeSpec("expected_tau", lambda r: r.over.expected_tau, ".2f", frozenset({SUMMARY, BENCH}),
              higher_is_better=True),
    GaugeSpec("tokens_per_second", lambda r: r.snap.tokens_per_second, ".1f",
              frozenset({PANEL, PANE, STRIP, SUMMARY, BENCH, WATCH}), window=lambda r: r.snap.window_tokens_per_second,
              higher_is_better=True, exact_key=Exact.TOKENS_PER_SECOND, timed=True, watched=lambda s: s.tokens_per_s,
              provenance_key="tokens_per_second"),
    GaugeSpec("running", _runs_only, "g", frozenset({WATCH}), watched=lambda s: s.active),
    GaugeSpec("draft_cost", lambda r: r.snap.draft_cost, ".3f", frozenset({PANEL, STRIP, SUMMARY, BENCH}),
              higher_is_better=False, exact_key=Exact.DRAFT_COST, timed=True, provenance_key="draft_cost",
              missing_key="draft_cost"),
    GaugeSpec("speedup", lambda r: r.over.speedup_measured, ".2f", frozenset({PANEL, STRIP, SUMMARY, BENCH}),
              suffix="×", higher_is_better=True, note=_speedup_note, provenance_key="speedup",
              source=_speedup_source, spread=lambda r: r.over.speedup_spread, judged=_speedup_judged,
              missing_key="speedup_theory", withheld=lambda r: r.over.speedup_withheld),
    GaugeSpec("context_drop", _context_drop, "+.2f", frozenset({SUMMARY, BENCH}), higher_is_better=False),
    GaugeSpec("verify_ratio", lambda r: r.over.verify_ratio, ".2f", frozenset({PANEL, SUMMARY, BENCH}),
              higher_is_better=False, source=_verify_source, spread=lambda r: r.over.verify_ratio_spread,
              missing_key="verify_ratio"),
    GaugeSpec("what_if", _what_if, ".0%", frozenset({PANEL}), note=_what_if_note, source=_what_if_source,
              optional=True),
)
