"""The gauge table: every number a view shows, in one list.

The live side panel, the compare panes and summary table, `bench --table`, the monitor of
`specview watch` and the help screen all read GAUGES: a view shows the gauges that name it in
`views`, in table order. Adding a gauge = one entry here + one line per language in
`texts/gauges.<lang>.toml` (its label, short label, help and, when it has one, the note
template). Values come out formatted (`formatted`), so widgets only draw text.

A gauge reads a `Reading`: one snapshot, the theory overlay for it and the run's BackendInfo.
`window` is what the live views show (the last rounds), `run` the whole run (summary, bench).
A gauge with a `spread` (one standard error: kernel/spread.py) writes its whole-run value as
"1.68× ± 0.12" wherever the whole run's value is shown.
In the monitor (view WATCH) there is no run of ours: `watched` reads a `WatchedInterval`
(kernel/watched_interval.py), what a server's /metrics counters did over one poll interval.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from specview.boundary.text import number
from specview.kernel.backend import BackendInfo, Exact, Origin
from specview.kernel.contended import short_note
from specview.kernel.events import Basis
from specview.kernel.metrics_snapshot import MetricsSnapshot
from specview.kernel.overlay import Overlay, overlay, plain_run
from specview.kernel.unmeasured import why_missing
from specview.kernel.watched_interval import WatchedInterval
from specview.texts.catalog import Phrase

PANEL = "panel"  # the live view's side panel
PANE = "pane"  # a compare pane's gauge line
STRIP = "strip"  # the live view's one-line gauge strip (terminals too narrow for the side panel)
SUMMARY = "summary"  # the compare screen's table
BENCH = "bench"  # `specview bench --table`
WATCH = "watch"  # `specview watch`: a server's /metrics deltas


@dataclass(frozen=True, slots=True)
class Reading:
    """What a gauge reads: one snapshot, the theory beside it, and what the run is."""

    snap: MetricsSnapshot
    over: Overlay
    info: BackendInfo

    @classmethod
    def of(cls, snap: MetricsSnapshot, info: BackendInfo) -> Reading:
        return cls(snap, overlay(snap, plain=plain_run(info.gamma, snap)), info)

    @property
    def missing(self) -> dict[str, str]:
        """The numbers the run's engine cannot give, by `bench --json` key, with the reason's id."""
        return why_missing(self.info, self.snap, self.over)


Value = Callable[[Reading], float | None]
NoteFields = Callable[[Reading], dict[str, str] | None]  # the values of a gauge's note template
Source = Callable[[Reading], tuple[str, dict[str, str]]]  # (catalog id, its values): where the value comes from
Watched = Callable[[WatchedInterval], float | None]
Judged = Callable[[Reading], tuple[str, dict[str, str]] | None]  # a verdict's words (catalog id, values), or None
Withheld = Callable[[Reading], Phrase | None]  # why a value that was measured is not shown, or None
WatchedNoteFields = Callable[[WatchedInterval], dict[str, object] | None]  # a value may be a Phrase


# a timed number on a virtual clock: the tag that says whose
ORIGIN_TAGS = {Origin.SIMULATED: "tag.simulated", Origin.RECORDED: "tag.recorded"}


@dataclass(frozen=True, slots=True)
class GaugeSpec:
    """One number: how to read it, format it, judge it and explain it.

    Catalog ids: `gauge.<key>.label` (side panel), `.short` (panes, tables), `.help` (help
    screen) and `.note` (a template filled from `note`). `exact_key` names the entry of
    `BackendInfo.exact` that says whether the backend reports the number or specview infers it;
    `timed` numbers come from the run's clock, so a virtual clock makes them simulated/recorded.
    """

    key: str
    run: Value
    fmt: str
    views: frozenset[str]
    window: Value | None = None
    run_fmt: str | None = None
    suffix: str = ""
    higher_is_better: bool | None = None  # None: no leader in the summary table
    bar: bool = False  # shown with a bar (the value is a fraction)
    exact_key: Exact | None = None
    timed: bool = False
    note: NoteFields | None = None
    provenance_key: str | None = None  # the simulator's `provenance.outputs` entry for this value
    source: Source | None = None  # a value-dependent origin (the speedup's baseline, the verify costs')
    watched: Watched | None = None  # its value in the monitor (view WATCH)
    watched_note: WatchedNoteFields | None = None  # values for its note template there
    spread: Value | None = None  # one standard error of the whole run's value (None: unknown)
    judged: Judged | None = None  # what kernel/verdict.py says of the value, where it says something
    # the `bench --json` key whose reason (kernel/unmeasured.py) the note states when the engine
    # cannot give it (c, v, the theory)
    missing_key: str | None = None
    optional: bool = False  # the side panel shows its row only once it has a value (a run of one kind)
    # why the value is "—" although it was measured (a baseline taken on a busy machine: kernel/contended.py)
    withheld: Withheld | None = None

    @property
    def label_id(self) -> str:
        return f"gauge.{self.key}.label"

    @property
    def short_id(self) -> str:
        return f"gauge.{self.key}.short"

    @property
    def help_id(self) -> str:
        return f"gauge.{self.key}.help"

    @property
    def note_id(self) -> str:
        return f"gauge.{self.key}.note"

    def value(self, reading: Reading, *, windowed: bool) -> float | None:
        """The live (windowed) value, or the whole run's."""
        read = self.window if windowed and self.window is not None else self.run
        return read(reading)

    def formatted(self, reading: Reading, *, windowed: bool, spread: bool = True) -> str:
        """The value as every view writes it (an em dash until there is one), with its spread
        ("1.68× ± 0.12") where the value is the whole run's and its spread is known; `spread`
        False leaves it out (a one-line strip has no room)."""
        value = self.value(reading, windowed=windowed)
        fmt = self.fmt if windowed else self.run_fmt or self.fmt
        text = number(value, fmt) + (self.suffix if value is not None else "")
        whole_run = not windowed or self.window is None
        error = self.spread(reading) if spread and whole_run and value is not None and self.spread else None
        return text if error is None else f"{text} ± {number(error, fmt)}"

    def formatted_watched(self, sample: WatchedInterval | None) -> str:
        """The monitor's value for one poll interval (an em dash before the second poll)."""
        value = self.watched(sample) if self.watched is not None and sample is not None else None
        return number(value, self.fmt) + (self.suffix if value is not None else "")

    def missing(self, reading: Reading) -> str | None:
        """Catalog id of why the engine cannot give this number (None: it can, or no reason applies)."""
        return None if self.missing_key is None else reading.missing.get(self.missing_key)

    def tag_id(self, info: BackendInfo, snap: MetricsSnapshot | None = None) -> str | None:
        """Catalog id of where the number comes from (exact, inferred, simulated…), or None.

        A number the backend does not report per round is "exact totals, rounds inferred" once
        the server's end-of-request totals made the whole run's value exact (`snap.exact_totals`).
        """
        if self.timed and info.origin is not Origin.MEASURED:
            return ORIGIN_TAGS[info.origin]
        if self.exact_key is None:
            return None
        reported = info.exact.get(self.exact_key)
        if reported:
            return "tag.exact"
        if snap is not None and self.exact_key in snap.exact_totals:
            return "tag.exact_totals"
        return "tag.not_reported" if reported is None else "tag.inferred"

    def tags(self, reading: Reading) -> list[tuple[str, Mapping[str, object]]]:
        """Everything the note says about where the number comes from, as (catalog id, values):
        exact / exact totals / inferred / simulated / recorded, then "assumed" or "derived" when a simulator
        preset's fields behind it are, then the value's own source (a baseline, a verify curve),
        then why a measured value is withheld (a baseline taken on a busy machine), then why the
        engine cannot give it or the theory beside it (a remote server times no cost).
        The one place that decides a gauge's provenance: every view writes these in the same place.
        """
        out: list[tuple[str, Mapping[str, object]]] = []
        tag = self.tag_id(reading.info, reading.snap)
        if tag is not None:
            out.append((tag, {}))
        outputs = reading.info.provenance.get("outputs") or {}
        kind = outputs.get(self.provenance_key) if self.provenance_key else None
        if kind in ("assumed", "derived") and self.source is None:
            out.append((f"tag.{kind}", {}))
        if self.source is not None:
            out.append(self.source(reading))
        withheld = self.withheld(reading) if self.withheld is not None else None
        if withheld is not None:
            note = short_note(withheld)
            out.append((note.key, note.fields))
        judged = self.judged(reading) if self.judged is not None else None
        if judged is not None:
            out.append(judged)
        why = self.missing(reading)
        if why is not None and (why, {}) not in out:
            out.append((why, {}))
        return out


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


SPARK = "▁▂▃▄▅▆▇█"


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
    GaugeSpec("drafts_per_second", _runs_only, ".1f", frozenset({WATCH}), watched=lambda s: s.drafts_per_s),
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


def gauges(view: str) -> tuple[GaugeSpec, ...]:
    """The gauges one view shows, in table order."""
    return tuple(spec for spec in GAUGES if view in spec.views)


def position_texts(values: Sequence[float | None], verified: Sequence[int] = (), *,
                   bound: bool = False) -> list[tuple[float | None, str]]:
    """Per-position acceptance as the bars show it: (fraction to two places, its text), with the
    rounds behind each bar where given (the rounds that drafted and verified the position).
    `bound`: the values after position 0 are lower bounds (a monitor's counts of drafts shorter
    than its series), written "≥ 0.71"."""
    counts = [f" ({compact_count(n)})" for n in verified] + [""] * (len(values) - len(verified))
    return [(None if v is None else round(v, 2), _position_value(v, bound and k > 0) + c)
            for k, (v, c) in enumerate(zip(values, counts, strict=False))]


def _position_value(value: float | None, at_least: bool) -> str:
    """One position's acceptance to two places, "≥ " before a lower bound ("—" when unknown)."""
    said = number(value, ".2f")
    return f"≥ {said}" if at_least and value is not None else said


def compact_count(n: int) -> str:
    """A count in at most four characters: 950, 1.2k, 34k, 1.2M."""
    if n < 1000:
        return str(n)
    value, suffix = (n / 1e6, "M") if n >= 1_000_000 else (n / 1e3, "k")
    return f"{value:.1f}{suffix}" if value < 10 else f"{value:.0f}{suffix}"
