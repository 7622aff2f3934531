"""What a Metrics fold reports at one moment (kernel/metrics.py folds; this is its frozen view)."""

from __future__ import annotations

from dataclasses import dataclass

from specview.kernel.context_acceptance import ContextAcceptance
from specview.kernel.drafters import DrafterCounts
from specview.kernel.events import Calibration
from specview.kernel.gamma_choice import GammaChoice
from specview.kernel.spread import CalibrationSpread
from specview.kernel.totals import CrossChecked, Totals
from specview.kernel.what_if import WhatIf
from specview.texts.catalog import Phrase


@dataclass(frozen=True, slots=True)
class MetricsSnapshot:
    """Everything a gauge or `bench --json` reads, at one instant."""

    rounds: int
    tokens: int
    drafted: int
    accepted: int
    verified: int
    acceptance_rate: float | None
    draft_yield: float | None
    tau: float | None
    tokens_per_second: float | None
    window_acceptance_rate: float | None
    window_tau: float | None
    window_tokens_per_second: float | None
    per_position_acceptance: tuple[float | None, ...]
    per_position_verified: tuple[int, ...]
    draft_cost: float | None
    expected_tau: float | None
    mean_gamma: float | None
    mean_verify_s: float | None
    elapsed_s: float | None
    tau_history: tuple[float, ...]
    alpha_history: tuple[float, ...]
    calibration: Calibration | None = None  # the run's calibrations combined (means of each number)
    calibrations: int = 0
    plain_round_s: float | None = None  # mean duration of the run's timed plain rounds
    plain_rounds: int = 0
    gamma_counts: tuple[tuple[int, int], ...] = ()  # (γ, rounds that drafted γ), γ ascending
    totals: Totals | None = None  # the servers' end-of-request totals, summed over the requests
    totals_requests: int = 0
    exact_totals: frozenset[str] = frozenset()  # BackendInfo.exact keys the totals make exact
    cross_check: CrossChecked | None = None  # the last request's counts against the server's own
    # one standard error each (kernel/spread.py): the calibrated costs', the run's tokens/s (from
    # batches of its rounds) and the plain rounds' mean duration
    calibration_spread: CalibrationSpread | None = None
    # the plain step's repeats in the run's fastest and slowest calibration (kernel/contended.py)
    plain_repeats: tuple[tuple[float, ...], ...] = ()
    # measured calibrations left out of `calibration`: taken while the machine was busy, and the last one's why
    calibrations_set_aside: int = 0
    set_aside_reason: Phrase | None = None
    tokens_per_second_spread: float | None = None
    rate_batches: int = 0
    plain_round_spread_s: float | None = None
    context: ContextAcceptance | None = None  # acceptance by output position (kernel/context_acceptance.py)
    gamma_history: tuple[int, ...] = ()  # γ of the latest rounds, oldest first (depth that varies)
    drafters: tuple[DrafterCounts, ...] = ()  # per drafter, where rounds name theirs (kernel/drafters.py)
    # `--gamma auto`'s decisions (kernel/gamma_choice.py): the last MAX_GAMMA_CHOICES, oldest first
    gamma_choices: tuple[GammaChoice, ...] = ()
    # a tree run's (γ, mean nodes per round of depth γ): its verify batch (kernel/tree_cost.py)
    tree_nodes: tuple[tuple[int, float], ...] = ()
    what_if: WhatIf | None = None  # a local chain run's: what a width-2/3 tree would have had (kernel/what_if.py)

    @property
    def gamma_choice(self) -> GammaChoice | None:
        """The γ auto chose last (None: not an auto run)."""
        return self.gamma_choices[-1] if self.gamma_choices else None
