"""Does speculation pay here? The results of `specview sweep`, as small documented shapes.

γ sweep: one `GammaPoint` per drafted length (γ = 0 is plain decoding), measured on the same
prompt. Theory comes from the measured numbers: α pooled over the sweep's drafting runs, the
draft cost c (local runs time drafting), and the verify-cost ratio v(γ) = mean verify time of a
round at γ ÷ the plain run's 1-token forward (`theory.verify_ratio`, the overlay's estimator;
on a CPU verifying γ + 1 tokens is not free).
Predicted speedup = τ(α, γ) / (γc + v(γ)) (`theory.speedup`); predicted tok/s = plain tok/s × it.
Where c or v(γ) was not timed (a remote server gives neither) there is no prediction: "—" with
the reason (`GammaSweep.missing`), never c = 0 or v = 1.
A measured speedup above its run's τ beyond noise is impossible (kernel/contended.py): the plain
run, every row's baseline, was slowed by other work on the machine. Then no row has a measured
speedup: "—" with the reason (`GammaSweep.speedup_withheld`), citing the plain run's load.
"τ if γ were γ′" comes from the observed per-position curve of the run with the largest γ
(`theory.tau_from_positions` on its first γ′ conditional acceptances).

Load sweep: one `LoadPoint` per concurrency, with speculation on and off (two servers or two
configurations), each run `repeats` times (alternating on and off, so a change in the machine's
load touches both); aggregate tok/s = all tokens ÷ wall time of one repeat; per-request tok/s =
the mean of each request's tokens ÷ its latency. On against off is judged by kernel/verdict.py:
faster or slower only when the intervals (mean ± 2 standard errors over the repeats) are apart,
else no difference beyond noise. The crossover is the first concurrency where speculation's
aggregate throughput is not above plain decoding's beyond noise: the article's "when it fails",
measured. `LoadSweep.to_dict()` / `from_dict()` is the JSON shape the Learn screen
"When it fails" reads (`specview sweep load … --json`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from specview.boundary.bounds import (
    MAX_COUNTER,
    MAX_SECONDS,
    integer,
    mapping,
    optional_integer,
    real,
    sequence,
    string,
)
from specview.kernel.backend import Note
from specview.kernel.contended import contended, signal_of
from specview.kernel.machine_load import Load
from specview.kernel.spread import combined
from specview.kernel.theory import speedup, tau_from_positions, verify_ratio
from specview.kernel.unmeasured import REMOTE_C, REMOTE_THEORY, REMOTE_V
from specview.kernel.verdict import RULE, Estimate, Outcome, Verdict, judge, leader
from specview.texts.catalog import Phrase, text

SCHEMA = "specview.sweep/1"
MAX_LEVELS = 64  # concurrency levels one load sweep may hold (the command line allows as many)
MAX_CONCURRENCY = 256  # clients at one level
MAX_RATE = 1e9  # tokens per second: far beyond any engine
MAX_REPEATS = 20  # runs of each configuration at one concurrency (`sweep load --repeats`)


@dataclass(frozen=True, slots=True)
class GammaPoint:
    """One run of the γ sweep (γ 0 = plain)."""

    gamma: int
    tokens: int
    rounds: int
    tokens_per_second: float | None
    tau: float | None
    acceptance_rate: float | None  # Leviathan's α of this run
    per_position: tuple[float | None, ...] = ()  # conditional acceptance by draft position
    draft_cost: float | None = None  # c, where the backend times drafting
    mean_verify_s: float | None = None  # mean target forward of one round
    mean_drafted: float | None = None  # drafts per round actually made (n-gram may draft fewer)
    accepted: int = 0
    verified: int = 0  # drafts verified (up to and including the first refused one)
    max_drafted: int = 0  # the longest draft of a round (a server may not honour γ)
    tokens_per_second_spread: float | None = None  # one standard error (kernel/spread.py), None: unknown
    load: Load | None = None  # the machine's load at the run's busiest calibration (kernel/machine_load.py)


@dataclass(frozen=True, slots=True)
class AutoPoint:
    """The same prompt once more with `--gamma auto` (local runs): what it chose last and why, and its speed."""

    gamma: int
    why: str  # kernel/gamma_choice.py's Why
    tokens_per_second: float | None
    gamma_counts: tuple[tuple[int, int], ...] = ()  # (γ drafted, rounds): what it ran

    def to_dict(self) -> dict[str, Any]:
        return {"gamma": self.gamma, "why": self.why, "tokens_per_second": self.tokens_per_second,
                "gamma_counts": [list(gc) for gc in self.gamma_counts]}


@dataclass(frozen=True, slots=True)
class GammaRow:
    """A γ point with what theory predicts from the sweep's own measurements."""

    point: GammaPoint
    speedup: float | None  # measured tok/s ÷ plain tok/s
    verify_ratio: float | None  # v(γ): this run's mean verify ÷ the plain 1-token forward
    predicted_speedup: float | None
    predicted_tokens_per_second: float | None
    tau_from_curve: float | None  # τ this γ would give by the observed per-position curve
    best: bool = False


@dataclass(frozen=True, slots=True)
class GammaSweep:
    """The analysed γ sweep."""

    rows: tuple[GammaRow, ...]
    alpha: float | None  # pooled over the drafting runs
    c: float | None  # None: no run timed its drafting (a remote server: `missing` says why)
    best_gamma: int | None  # faster than every other run beyond noise (kernel/verdict.py), plain included
    curve: tuple[float | None, ...]  # the per-position curve "τ if γ were γ′" uses
    notes: tuple[Note, ...] = ()  # what did not hold (catalog ids `note.<id>`)
    auto: AutoPoint | None = None  # the `--gamma auto` run beside the sweep (local engines)
    # what the engine cannot give ("c", "verify_ratio", "predicted_speedup") → the reason's catalog id
    missing: dict[str, str] = field(default_factory=dict)
    speedup_withheld: Phrase | None = None  # why no row has a measured speedup: the plain run was disturbed

    def to_dict(self) -> dict[str, Any]:
        withheld = self.speedup_withheld
        return {
            "schema": SCHEMA, "kind": "gamma", "alpha": self.alpha, "c": self.c, "best_gamma": self.best_gamma,
            "speedup_withheld": None if withheld is None else {
                "signal": signal_of(withheld), "id": withheld.key, "text": withheld.render("en")},
            "auto": None if self.auto is None else self.auto.to_dict(),
            "curve": list(self.curve), "notes": [note.to_dict() for note in self.notes],
            "not_measured": {key: {"id": why, "text": text(why, "en")} for key, why in self.missing.items()},
            "rows": [{**asdict(r.point), "per_position": list(r.point.per_position), "speedup": r.speedup,
                      "verify_ratio": r.verify_ratio, "predicted_speedup": r.predicted_speedup,
                      "predicted_tokens_per_second": r.predicted_tokens_per_second,
                      "tau_from_curve": r.tau_from_curve, "best": r.best} for r in self.rows],
        }


def analyse_gamma(points: list[GammaPoint], notes: tuple[Note, ...] = (), *, untimed: bool = False) -> GammaSweep:
    """Theory next to measurement, the best γ marked; theory only where c and v(γ) were timed
    (`untimed`: the engine times no cost, a remote server: they are missing, and why)."""
    plain = next((p for p in points if p.gamma == 0), None)
    drafting = [p for p in points if p.gamma > 0]
    verified = sum(p.verified for p in drafting)
    alpha = sum(p.accepted for p in drafting) / verified if verified > 0 else None
    costs = [p.draft_cost for p in drafting if p.draft_cost is not None]
    c = sum(costs) / len(costs) if costs else None
    deepest = max(drafting, key=lambda p: (len(p.per_position), p.gamma), default=None)
    curve = deepest.per_position if deepest is not None else ()
    base_tps = plain.tokens_per_second if plain is not None else None
    base_verify = plain.mean_verify_s if plain is not None else None
    best = _fastest_beyond_noise(points)
    withheld = _plain_run_contended(plain, drafting)
    rows = []
    for p in sorted(points, key=lambda p: p.gamma):
        ratio = None
        if p.gamma > 0 and base_verify and p.mean_verify_s:
            # v(γ) with this run's mean round verify as cost(γ+1), the plain run's as cost(1)
            ratio = verify_ratio({0: base_verify, p.gamma: p.mean_verify_s}, p.gamma)
        predicted = None
        if p.gamma == 0:
            predicted = 1.0
        elif alpha is not None and c is not None and ratio is not None:  # never an assumed c = 0 or v = 1
            predicted = speedup(min(1.0, max(0.0, alpha)), p.gamma, c, ratio)
        measured = p.tokens_per_second / base_tps if p.tokens_per_second and base_tps else None
        if withheld is not None and p.gamma > 0:
            measured = None
        rows.append(GammaRow(
            point=p, speedup=measured, verify_ratio=ratio, predicted_speedup=predicted,
            predicted_tokens_per_second=predicted * base_tps if predicted is not None and base_tps else None,
            tau_from_curve=tau_if_gamma(curve, p.gamma), best=p.gamma == best,
        ))
    missing = {"c": REMOTE_C, "verify_ratio": REMOTE_V, "predicted_speedup": REMOTE_THEORY} if untimed else {}
    return GammaSweep(tuple(rows), alpha, c, best, curve, notes, missing=missing, speedup_withheld=withheld)


def _plain_run_contended(plain: GammaPoint | None, drafting: list[GammaPoint]) -> Phrase | None:
    """Why the plain run cannot be the rows' baseline: a row's measured speedup (its tok/s ÷ the
    plain run's, with both spreads) above its own τ beyond noise (kernel/contended.py); None if none is."""
    if plain is None or not plain.tokens_per_second:
        return None
    base = plain.tokens_per_second
    for p in drafting:
        if not p.tokens_per_second:
            continue
        ratio = p.tokens_per_second / base
        spread = combined(ratio, (p.tokens_per_second, p.tokens_per_second_spread),
                          (base, plain.tokens_per_second_spread))
        reason = contended(speedup=Estimate(ratio, spread), tau=p.tau, load=plain.load)
        if reason is not None:
            return reason
    return None


def _fastest_beyond_noise(points: list[GammaPoint]) -> int | None:
    """The γ whose tok/s beats every other run's beyond noise (kernel/verdict.py's rule on each
    run's tok/s and its spread), None when no run does: four runs of one configuration tie."""
    estimates = [None if p.tokens_per_second is None else Estimate(p.tokens_per_second, p.tokens_per_second_spread)
                 for p in points]
    index = leader(estimates)
    return None if index is None else points[index].gamma


def tau_if_gamma(curve: tuple[float | None, ...], gamma: int) -> float | None:
    """τ a run drafting γ′ = `gamma` would give by the observed per-position curve (None past
    what was observed)."""
    if gamma == 0:
        return 1.0
    if gamma > len(curve) or any(a is None for a in curve[:gamma]):
        return None
    return tau_from_positions([a for a in curve[:gamma] if a is not None])


@dataclass(frozen=True, slots=True)
class LoadPoint:
    """One concurrency of the load sweep: speculation on and off, each repeated.

    The means are over the repeats (`on_samples`, `off_samples`: each repeat's aggregate tok/s);
    drafted / accepted are the server's counts over every request of the point (None: the server
    told neither per request nor in /metrics)."""

    concurrency: int
    on_tokens_per_second: float  # aggregate, the mean over the repeats
    off_tokens_per_second: float
    on_per_request: float  # mean per-request tok/s
    off_per_request: float
    requests: int = 0  # per configuration, over every repeat
    on_samples: tuple[float, ...] = ()  # each repeat's aggregate tok/s
    off_samples: tuple[float, ...] = ()
    on_drafted: int | None = None
    on_accepted: int | None = None
    off_drafted: int | None = None
    off_accepted: int | None = None

    @property
    def gain(self) -> float | None:
        """Aggregate speedup of speculation at this load (on ÷ off)."""
        return self.on_tokens_per_second / self.off_tokens_per_second if self.off_tokens_per_second > 0 else None

    @property
    def verdict(self) -> Verdict:
        """On against off by the one rule (kernel/verdict.py); without repeats, within noise."""
        return judge(_estimate(self.on_samples, self.on_tokens_per_second),
                     _estimate(self.off_samples, self.off_tokens_per_second))

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "on_samples": list(self.on_samples), "off_samples": list(self.off_samples),
                "gain": self.gain, "verdict": self.verdict.to_dict(rule=str(RULE))}


def _estimate(samples: tuple[float, ...], mean: float) -> Estimate:
    return Estimate.of(samples) if samples else Estimate(mean, None)


@dataclass(frozen=True, slots=True)
class LoadSweep:
    """The load sweep, with the crossover where speculation stops paying beyond noise."""

    points: tuple[LoadPoint, ...]
    on_label: str = "speculation on"
    off_label: str = "speculation off"
    notes: tuple[Note, ...] = field(default=())
    repeats: int = 1  # runs of each configuration at each concurrency

    @property
    def crossover(self) -> int | None:
        """The first concurrency where speculation's aggregate tok/s is not above plain's beyond
        noise (kernel/verdict.py): slower, or no difference beyond noise."""
        for point in sorted(self.points, key=lambda p: p.concurrency):
            if point.verdict.outcome is not Outcome.ABOVE:
                return point.concurrency
        return None

    @property
    def stops_paying(self) -> int | None:
        """The crossover where the table marks ✗: only where speculation paid beyond noise at a
        lower level, or was slower beyond noise there (a tie from the start stops nothing)."""
        crossover = self.crossover
        if crossover is None:
            return None
        ordered = sorted(self.points, key=lambda p: p.concurrency)
        at = next(p for p in ordered if p.concurrency == crossover)
        earlier = [p for p in ordered if p.concurrency < crossover]
        return crossover if earlier or at.verdict.outcome is Outcome.BELOW else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON the Learn screen "When it fails" reads (see module docstring)."""
        return {
            "schema": SCHEMA, "kind": "load", "on_label": self.on_label, "off_label": self.off_label,
            "repeats": self.repeats, "crossover": self.crossover, "notes": [note.to_dict() for note in self.notes],
            "points": [p.to_dict() for p in self.points],
        }

    @classmethod
    def from_dict(cls, data: Any) -> LoadSweep:
        """Read `to_dict()`'s shape back (e.g. a file the Learn screen is given): anything else,
        or a value out of bounds, is Invalid (a ValueError) naming the field."""
        data = mapping(data, "sweep")
        if data.get("schema") != SCHEMA or data.get("kind") != "load":
            raise ValueError("not a specview load sweep")
        points = []
        for i, item in enumerate(sequence(data.get("points"), "points", MAX_LEVELS)):
            p = mapping(item, f"points[{i}]")

            def rate(key: str, p: dict[str, Any] = p, i: int = i) -> float:
                return real(p.get(key), f"points[{i}].{key}", 0.0, MAX_RATE)

            def rates(key: str, p: dict[str, Any] = p, i: int = i) -> tuple[float, ...]:
                where = f"points[{i}].{key}"
                return tuple(real(v, f"{where}[{k}]", 0.0, MAX_RATE)
                             for k, v in enumerate(sequence(p.get(key, []), where, MAX_REPEATS)))

            def count(key: str, p: dict[str, Any] = p, i: int = i) -> int | None:
                return optional_integer(p.get(key), f"points[{i}].{key}", 0, MAX_COUNTER)

            points.append(LoadPoint(
                integer(p.get("concurrency"), f"points[{i}].concurrency", 1, MAX_CONCURRENCY),
                rate("on_tokens_per_second"), rate("off_tokens_per_second"),
                rate("on_per_request"), rate("off_per_request"),
                integer(p.get("requests", 0), f"points[{i}].requests", 0, int(MAX_SECONDS)),
                rates("on_samples"), rates("off_samples"),
                count("on_drafted"), count("on_accepted"), count("off_drafted"), count("off_accepted"),
            ))
        return cls(tuple(points), string(data.get("on_label", ""), "on_label"),
                   string(data.get("off_label", ""), "off_label"), Note.read_all(data.get("notes", []), "notes"),
                   integer(data.get("repeats", 1), "repeats", 1, MAX_REPEATS))
