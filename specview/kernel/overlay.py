"""The theory overlay: what Leviathan's formulas expect from the measured α, γ, c and v.

Everything here spans the whole run (the gauges' window values sit beside it, labelled).

The measured speedup is spec tokens/s ÷ plain tokens/s, never assumed from the verify time:
plain decoding's time per token comes from the run's calibration (the local backend times a
plain step; the simulator assumes one; `--baseline-tps` or a paired plain run gives one) or
else from the run's own plain rounds (rounds that drafted nothing). Without any of these the
speedup is unknown ("no baseline") rather than guessed.

A plain run (`--no-spec`: a backend that drafts nothing by construction, measured here) is its
own baseline: its speedup is 1 by definition (basis DEFINITION), never its tokens/s ÷ its
calibrated plain step, which would be a ratio of two measurements of the same thing. Those two
sit side by side in the gauge's note instead, each with its spread, and agree within it.

Each measured value carries one standard error (kernel/spread.py says how each is formed):
speedup S = R · P (R the run's tokens/s, P plain decoding's seconds per token), so
δS = S · √((δR/R)² + (δP/P)²); v(γ) = C(γ+1) / C(1), so δv = v · √((δC(γ+1)/C(γ+1))² + (δC(1)/C(1))²).
An assumed baseline adds nothing (δP = 0); a given or paired one's spread is unknown, and so is
the speedup's.

A calibration whose own repeats say the machine was busy is left out of the baseline (Metrics sets
it aside; the engine measures again soon). A measured baseline that still could not have been
measured on a free machine (a speedup above τ, a k-token forward cheaper than a 1-token one, plain
steps that disagree between calibrations: kernel/contended.py), or a run whose every calibration
was set aside, gives no speedup: `speedup_withheld` says why, and the speedup is unknown rather
than impossible.
"""

from __future__ import annotations

from dataclasses import dataclass

from specview.kernel.contended import contended
from specview.kernel.events import Basis, Calibration
from specview.kernel.metrics_snapshot import MetricsSnapshot
from specview.kernel.spread import combined, reciprocal_spread
from specview.kernel.theory import MAX_GAMMA, VerifyRatio, best_gamma, expected_tau, speedup_of_tau
from specview.kernel.tree_cost import verify_drafts
from specview.kernel.verdict import Estimate, Verdict, judge
from specview.texts.catalog import Phrase

MIN_PLAIN_ROUNDS = 8  # timed plain rounds needed before they stand in for a baseline
PLAIN_ROUNDS = Basis.PLAIN_ROUNDS  # the basis when the run's own plain rounds are the baseline
PLAIN_SPEEDUP = 1.0  # plain decoding's speedup (a plain run's): a definition, no spread


@dataclass(frozen=True, slots=True)
class Overlay:
    """Measured values next to the theory they imply; None where an input is missing."""

    tau: float | None
    expected_tau: float | None
    tau_gap: float | None
    speedup_measured: float | None
    speedup_theory: float | None
    best_gamma: int | None
    best_speedup: float | None
    speedup_basis: Basis | None = None  # None: no baseline
    plain_tokens_per_second: float | None = None
    verify_ratio: float | None = None  # v(γ) = cost(γ+1) ÷ cost(1) (a tree: v(nodes)); 1 assumed, None: not timed
    gamma: int | None = None  # the γ of the drafting rounds (rounded mean)
    speedup_spread: float | None = None  # one standard error of speedup_measured (None: unknown)
    plain_tokens_per_second_spread: float | None = None
    verify_ratio_spread: float | None = None
    # why a measured speedup is not shown: its baseline was measured while the machine was taken
    speedup_withheld: Phrase | None = None

    @property
    def speedup_verdict(self) -> Verdict | None:
        """The measured speedup against plain decoding's 1× by kernel/verdict.py's rule; None where
        there is nothing to judge: no measured speedup, an unknown spread (a given or paired
        baseline), or a plain run (1× by definition)."""
        if self.speedup_measured is None or self.speedup_spread is None or self.speedup_basis is Basis.DEFINITION:
            return None
        return judge(Estimate(self.speedup_measured, self.speedup_spread), Estimate(PLAIN_SPEEDUP, 0.0))


def plain_run(gamma: int | None, snap: MetricsSnapshot) -> bool:
    """Whether the run is plain decoding by construction (`--no-spec`, or its replay): the backend
    names no γ, nothing was drafted, and plain decoding's cost was measured in the run itself.
    (A remote run without a known γ has a given, paired or plain-round baseline: not this.)"""
    cal = snap.calibration
    return gamma is None and snap.drafted == 0 and cal is not None and cal.basis is Basis.MEASURED


def baseline(snap: MetricsSnapshot) -> tuple[float | None, Basis | None]:
    """Plain decoding's seconds per token for this run, and where it comes from (None: no baseline)."""
    plain_s, _, basis = _baseline(snap)
    return plain_s, basis


def _baseline(snap: MetricsSnapshot) -> tuple[float | None, float | None, Basis | None]:
    """Plain decoding's seconds per token, its standard error (None: unknown) and its basis."""
    cal = snap.calibration
    if cal is not None and cal.plain_s is not None:
        if cal.basis is Basis.ASSUMED:
            return cal.plain_s, 0.0, cal.basis  # an assumption: nothing measured, nothing to spread
        spread = snap.calibration_spread
        return cal.plain_s, None if spread is None else spread.plain_s, cal.basis
    if cal is not None and cal.basis is Basis.MEASURED and snap.calibrations_set_aside:
        return None, None, Basis.MEASURED  # measured, and every calibration set aside: none to stand on
    if snap.plain_rounds >= MIN_PLAIN_ROUNDS and snap.plain_round_s:
        return snap.plain_round_s, snap.plain_round_spread_s, PLAIN_ROUNDS
    return None, None, None


def overlay(snap: MetricsSnapshot, *, plain: bool = False) -> Overlay:
    """Theory for a snapshot: expected τ at the measured α and γ, the speedup c and v allow, best γ.

    `plain`: the run is plain decoding by construction (`plain_run`), its speedup 1 by definition."""
    alpha = snap.acceptance_rate
    drafting = [(g, n) for g, n in snap.gamma_counts if g > 0]
    gamma = round(sum(g * n for g, n in drafting) / sum(n for _, n in drafting)) if drafting else None
    exp_tau = snap.expected_tau
    if exp_tau is None and alpha is not None and gamma:
        exp_tau = expected_tau(alpha, gamma)
    gap = None if exp_tau is None or snap.tau is None else snap.tau - exp_tau
    ratio = _verify_ratios(snap.calibration)
    theory = best_g = best_s = v = None
    batch = None if gamma is None else verify_drafts(gamma, snap.tree_nodes)  # a tree: its nodes
    if ratio is not None and batch:
        v = ratio(batch)
    if alpha is not None and gamma and snap.draft_cost is not None and ratio is not None:
        bounded = min(alpha, 0.999999)
        theory = _mixture_speedup(bounded, snap.draft_cost, snap.gamma_counts, ratio, snap.tree_nodes)
        # best γ is searched only where v is known: up to the measured k, or everywhere when v ≡ 1
        best_g, best_s = best_gamma(bounded, snap.draft_cost, MAX_GAMMA, ratio)
    plain_s, plain_spread, basis = _baseline(snap)
    rate = snap.tokens_per_second
    measured = None if plain_s is None or rate is None else rate * plain_s
    spread = combined(measured, (rate, snap.tokens_per_second_spread), (plain_s, plain_spread))
    withheld = None
    if plain:
        measured, spread, basis = PLAIN_SPEEDUP, None, Basis.DEFINITION
    elif basis is Basis.MEASURED:
        if plain_s is None:
            withheld = snap.set_aside_reason
        elif measured is not None:
            withheld = _contended(snap, Estimate(measured, spread))
        if withheld is not None:
            measured = spread = None
    return Overlay(
        tau=snap.tau,
        expected_tau=exp_tau,
        tau_gap=gap,
        speedup_measured=measured,
        speedup_theory=theory,
        best_gamma=best_g,
        best_speedup=best_s,
        speedup_basis=basis,
        plain_tokens_per_second=None if plain_s is None else 1.0 / plain_s,
        verify_ratio=v,
        gamma=gamma,
        speedup_spread=spread,
        plain_tokens_per_second_spread=reciprocal_spread(plain_s, plain_spread),
        verify_ratio_spread=_verify_ratio_spread(snap, batch, v),
        speedup_withheld=withheld,
    )


def _contended(snap: MetricsSnapshot, speedup: Estimate) -> Phrase | None:
    """Why the run's measured baseline cannot be trusted (kernel/contended.py), from the speedup,
    the run's τ, the calibrated costs with their spreads and the plain step's repeats."""
    cal, spread = snap.calibration, snap.calibration_spread
    if cal is None:
        return None
    errors = () if spread is None else spread.verify_costs_s
    costs = [Estimate(cost, errors[k] if k < len(errors) else None) for k, cost in enumerate(cal.verify_costs_s)]
    return contended(speedup=speedup, tau=snap.tau, verify_costs=costs, plain_repeats=snap.plain_repeats,
                     load=cal.load)


def _verify_ratio_spread(snap: MetricsSnapshot, gamma: int | None, v: float | None) -> float | None:
    """δv(γ) from the spreads of the (γ+1)-token and the 1-token forward (measured costs only);
    `gamma` is the drafts the batch verified (a tree's nodes)."""
    cal, spread = snap.calibration, snap.calibration_spread
    if cal is None or spread is None or v is None or not gamma or cal.basis is not Basis.MEASURED:
        return None
    costs, errors = cal.verify_costs_s, spread.verify_costs_s
    if len(costs) <= gamma or len(errors) <= gamma:
        return None
    return combined(v, (costs[gamma], errors[gamma]), (costs[0], errors[0]))


def _verify_ratios(cal: Calibration | None) -> VerifyRatio | None:
    """v(γ) for the theory: measured costs where the run timed them; 1 where the simulator's cost
    model assumes it; unknown (None) before a local run's first calibration and wherever nothing
    timed a forward (a remote server, a given or paired baseline: kernel/unmeasured.py)."""
    if cal is not None and cal.basis is Basis.MEASURED:
        return cal.verify_ratio if cal.verify_costs_s else None
    return _one if cal is not None and cal.basis is Basis.ASSUMED else None


def _one(gamma: int) -> float:
    return 1.0


def _mixture_speedup(
    alpha: float, c: float, gamma_counts: tuple[tuple[int, int], ...], ratio: VerifyRatio,
    tree_nodes: tuple[tuple[int, float], ...] = (),
) -> float | None:
    """E[tokens per round] ÷ E[round cost] over the run's γs, E[τ] / (E[γ]c + E[v]): τ / (γc + v(γ))
    when γ is fixed, through `speedup_of_tau` (the one formula: a preset's varying depth is the same sum).

    Rounds that drafted nothing cost one 1-token forward and emit one token. A tree round of
    depth γ verifies all its nodes: τ / (γc + v(nodes)) (kernel/tree_cost.py).
    """
    rounds = tokens = drafted = verify = 0.0
    for gamma, n in gamma_counts:
        v = 1.0 if gamma == 0 else ratio(verify_drafts(gamma, tree_nodes))
        if v is None:
            return None
        rounds += n
        tokens += n * expected_tau(alpha, gamma)
        drafted += n * gamma
        verify += n * v
    if rounds <= 0 or drafted * c + verify <= 0:
        return None
    return speedup_of_tau(tokens / rounds, drafted / rounds, c, verify / rounds)
