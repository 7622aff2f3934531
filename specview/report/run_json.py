"""The stats object `bench --json` and `replay --json` print.

Its numbers are the gauge table's (kernel/gauges.py): every gauge `bench --table` shows gives its
whole-run value under its key (`gauge_numbers`), so a new bench gauge is a new JSON key with nothing
written here. What no gauge shows (counts, the spreads, where each number comes from, notes) is
laid out below.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from specview.kernel.context_acceptance import acceptance_json
from specview.kernel.drafters import drafters_json
from specview.kernel.gauges import BENCH, GaugeSpec, Reading, gauges
from specview.kernel.overlay import Overlay
from specview.kernel.verdict import RULE

if TYPE_CHECKING:
    from specview.kernel.backend import BackendInfo
    from specview.kernel.events import Basis
    from specview.kernel.gamma_choice import GammaChoice
    from specview.kernel.metrics_snapshot import MetricsSnapshot

MEASURED_OUTPUTS = ("acceptance", "tau", "tokens_per_second", "draft_cost")


# A gauge's JSON key where it is not the gauge's own: α keeps the name the JSON has always had; the
# γ `--gamma auto` chose is `gamma_auto.chosen.gamma`, inside the object of its decisions.
JSON_KEYS: dict[str, str | None] = {"alpha": "acceptance_rate", "gamma_auto": None}
RATE_DIGITS = 2  # places a value the views write to one place keeps (tokens/s)
FRACTION_DIGITS = 4  # places every other fraction keeps


def _round(value: float | None, digits: int = FRACTION_DIGITS) -> float | None:
    return None if value is None else round(value, digits)


def json_digits(spec: GaugeSpec) -> int | None:
    """The places a gauge's value keeps in the JSON: None for one the views write as it is (a
    count, a setting: format "" or "g"), RATE_DIGITS for one they write to one place, else
    FRACTION_DIGITS."""
    fmt = spec.run_fmt or spec.fmt
    if not fmt.endswith("f"):
        return None
    return RATE_DIGITS if fmt.endswith(".1f") else FRACTION_DIGITS


def gauge_numbers(reading: Reading) -> dict[str, Any]:
    """Each `bench` gauge's whole-run value under its JSON key, in table order."""
    out: dict[str, Any] = {}
    for spec in gauges(BENCH):
        key = JSON_KEYS.get(spec.key, spec.key)
        if key is None:
            continue
        value, digits = spec.run(reading), json_digits(spec)
        out[key] = value if digits is None else _round(value, digits)
    return out


def provenance(info: BackendInfo, speedup_basis: Basis | None, unmeasured: Collection[str] = ()) -> dict[str, Any]:
    """Where each number comes from: a simulator preset's fields and outputs, else "measured"
    ("not_measured" for those the engine cannot give: `unmeasured`); the speedup's baseline by
    name ("none" when the run has none)."""
    out: dict[str, Any] = {k: v for k, v in info.provenance.items() if k != "outputs"}
    outputs = dict(info.provenance.get("outputs")
                   or {key: "not_measured" if key in unmeasured else "measured" for key in MEASURED_OUTPUTS})
    outputs.setdefault("speedup", speedup_basis or "none")
    out["outputs"] = outputs
    out["speedup_basis"] = speedup_basis or "none"
    return out


def totals_dict(snap: MetricsSnapshot) -> dict[str, Any] | None:
    """The servers' end-of-request totals the run's counts rest on (null when none came): what
    they said, over how many requests, and which numbers they make exact."""
    if snap.totals is None:
        return None
    return {**snap.totals.to_dict(), "requests": snap.totals_requests, "exact": sorted(snap.exact_totals)}


def prompt_format_dict(info: BackendInfo) -> dict[str, Any] | None:
    """How a local model got its prompt: the note's id (`note.prompt_*`), its values, the English
    text ("raw completion", "chat template gemma (from the GGUF)"); null where specview did not
    tokenize the prompt."""
    if info.prompt_format is None:
        return None
    from specview.texts.catalog import fill

    note = info.prompt_format
    return {**note.to_dict(), "text": fill(f"note.{note.id}", "en", **note.values)}


SPREAD_KIND = "standard_error"  # what every number of the `spread` object is (kernel/spread.py)


def spread_dict(snap: MetricsSnapshot, over: Overlay) -> dict[str, Any]:
    """One standard error for each measured number, keyed like the number itself (null: unknown),
    and what they rest on: the calibrations and timed repeats (and those set aside as disturbed),
    the batches of the run's rounds."""
    cal = snap.calibration_spread
    costs = None if cal is None or not cal.verify_costs_s else [_round(c, 6) for c in cal.verify_costs_s]
    return {
        "kind": SPREAD_KIND,
        "speedup": _round(over.speedup_spread),
        "tokens_per_second": _round(snap.tokens_per_second_spread, RATE_DIGITS),
        "plain_tokens_per_second": _round(over.plain_tokens_per_second_spread, RATE_DIGITS),
        "verify_cost": costs,
        "verify_ratio": _round(over.verify_ratio_spread),
        "calibrations": 0 if cal is None else cal.calibrations,
        # taken while the machine was busy (kernel/contended.py): left out of every number above
        "calibrations_set_aside": snap.calibrations_set_aside,
        "plain_repeats": 0 if cal is None else cal.repeats,
        "rate_batches": snap.rate_batches,
    }


def withheld_dict(snap: MetricsSnapshot, over: Overlay) -> dict[str, Any] | None:
    """Why `speedup` is null although it was measured (null: it is not withheld): the signal that
    says the baseline was measured while the machine was taken (kernel/contended.py), the reason's
    catalog id and English text, and the busiest calibration's load (null: not read)."""
    reason = over.speedup_withheld
    if reason is None:
        return None
    from specview.kernel.contended import signal_of

    load = None if snap.calibration is None or snap.calibration.load is None else snap.calibration.load.to_dict()
    return {"signal": signal_of(reason), "id": reason.key, "text": reason.render("en"), "load": load}


def gamma_auto_dict(snap: MetricsSnapshot) -> dict[str, Any] | None:
    """`--gamma auto`'s decisions (null for a run with a fixed γ): the last one, and every one kept,
    oldest first, each with the expected speedup at every γ it weighed (kernel/gamma_choice.py)."""
    if snap.gamma_choice is None:
        return None
    from specview.report.sentences import choice_text

    chosen = {**_choice_dict(snap.gamma_choice), "text": choice_text(snap.gamma_choice, "en")}
    return {"chosen": chosen, "history": [_choice_dict(c) for c in snap.gamma_choices]}


def _choice_dict(choice: GammaChoice) -> dict[str, Any]:
    """One decision's numbers (kernel/gamma_choice.py), and the English words of its busy reason."""
    out = choice.to_dict()
    if choice.busy is not None:
        out["busy"] = {**out["busy"], "text": choice.busy.render("en")}
    return out


def what_if_dict(snap: MetricsSnapshot, temperature: float) -> dict[str, Any] | None:
    """What a width-2/3 tree would have had, over a local chain run's rounds that kept q's top tokens
    (null for any other run): the counts, their shares, the rounds counted, the English line."""
    if snap.what_if is None:
        return None
    from specview.report.sentences import what_if_lines

    return {**snap.what_if.to_dict(), "basis": "rounds counted", "greedy": temperature <= 0,
            "text": " ".join(what_if_lines(snap.what_if, temperature, "en"))}


def gamma_note_dict(info: BackendInfo) -> dict[str, Any] | None:
    """The note that says γ is the server's and which was asked (null where γ is as asked)."""
    from specview.kernel.unmeasured import GAMMA_NOTES

    return _note_dict(info, lambda note_id: note_id in GAMMA_NOTES)


REPACK_NOTE_PREFIX = "repack_"  # backends/local/cpu_features.py's notes


def repack_dict(info: BackendInfo) -> dict[str, Any] | None:
    """Whether a local run loaded llama.cpp's repacked weights, and why (its `repack_*` note; null
    for other runs): `{"id", "values", "text", "repack"}`."""
    found = _note_dict(info, lambda note_id: note_id.startswith(REPACK_NOTE_PREFIX))
    return None if found is None else {**found, "repack": "off" not in found["id"].split("_")}


def text_truncated_dict(info: BackendInfo) -> dict[str, Any] | None:
    """The token text the run could not keep (null: none was cut): `{"id", "values", "text"}`, the
    values counting the characters and chunks cut and the bounds they passed."""
    from specview.kernel.unmeasured import TEXT_CUT_NOTE

    return _note_dict(info, lambda note_id: note_id == TEXT_CUT_NOTE)


def _note_dict(info: BackendInfo, chosen: Callable[[str], bool]) -> dict[str, Any] | None:
    from specview.texts.catalog import fill

    note = next((n for n in info.notes if chosen(n.id)), None)
    return None if note is None else {**note.to_dict(), "text": fill(f"note.{note.id}", "en", **note.values)}


def not_measured_dict(info: BackendInfo, snap: MetricsSnapshot, over: Overlay) -> dict[str, Any]:
    """Why each null the engine cannot give is null (c, v, the theory from them), by key: the
    reason's catalog id and its English text (empty where the run timed its own costs)."""
    from specview.kernel.unmeasured import why_missing
    from specview.texts.catalog import text

    return {key: {"id": why, "text": text(why, "en")} for key, why in why_missing(info, snap, over).items()}


def stats_dict(info: BackendInfo, snap: MetricsSnapshot, text: str) -> dict[str, Any]:
    """One JSON-ready object: what the run is (seed, model names), every bench gauge's number
    (`gauge_numbers`), the counts, the verify-cost curve, the speedup's baseline, where every number comes from,
    the spreads, the servers' totals and the /metrics cross-check's result. A plain run's
    speedup is 1 by definition (provenance.speedup_basis "definition"). A number the engine
    cannot give (c, v remotely) is null with its reason in `not_measured`; a speedup whose
    baseline was measured while the machine was busy is null with its reason in `speedup_withheld`;
    token text a request could not keep is counted in `text_truncated` (backends/remote/text_budget.py)."""
    reading = Reading.of(snap, info)
    over = reading.over
    cal = snap.calibration
    not_measured = not_measured_dict(info, snap, over)
    return {
        "backend": info.backend,
        "preset": info.preset,
        "model": info.model,
        "draft": info.draft,
        "seed": info.seed,
        **gauge_numbers(reading),
        "gamma_asked": info.gamma_asked,  # null: γ as asked (or none asked)
        "gamma_note": gamma_note_dict(info),
        "prompt_format": prompt_format_dict(info),
        "repack": repack_dict(info),
        "tokens": snap.tokens,
        "drafted": snap.drafted,
        "accepted": snap.accepted,
        "verified": snap.verified,
        "draft_yield": _round(snap.draft_yield),
        "per_position_acceptance": [_round(a) for a in snap.per_position_acceptance],
        # per position: verified counts only rounds that drafted the position (early stops are no rejections)
        "per_position_verified": list(snap.per_position_verified),
        "gamma_counts": {str(g): n for g, n in snap.gamma_counts},
        "by_drafter": drafters_json(snap.drafters),
        "acceptance_by_context": acceptance_json(snap.context, info.prompt_tokens),
        "verify_cost": None if cal is None or not cal.verify_costs_s else [_round(c, 6) for c in cal.verify_costs_s],
        "plain_tokens_per_second": _round(over.plain_tokens_per_second, RATE_DIGITS),
        "speedup_withheld": withheld_dict(snap, over),
        "speedup_theory": _round(over.speedup_theory),
        # against plain's 1× by kernel/verdict.py's rule (null: nothing to judge, e.g. a plain run)
        "speedup_verdict": None if (verdict := over.speedup_verdict) is None else verdict.to_dict(rule=str(RULE)),
        "best_gamma": over.best_gamma,
        "not_measured": not_measured,
        "provenance": provenance(info, over.speedup_basis, not_measured),
        "spread": spread_dict(snap, over),
        "totals": totals_dict(snap),
        "cross_check": None if snap.cross_check is None else snap.cross_check.to_dict(),
        "gamma_auto": gamma_auto_dict(snap),
        "what_if": what_if_dict(snap, info.temperature),
        "elapsed_s": _round(snap.elapsed_s),
        "text_truncated": text_truncated_dict(info),
        "text": text,
    }
