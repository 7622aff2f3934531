"""Metrics as a pure fold over Rounds: running totals, a window, per-position counts.

α (acceptance rate) is Leviathan's: the probability that a *verified* draft is accepted,
accepted / verified, where a round verifies its drafts up to and including the first
rejection. That is the α of Eq. 1, so expected τ = (1 − α^{γ+1}) / (1 − α) is comparable
with the measured τ. accepted / drafted (llama.cpp's "rate") is reported as draft_yield.

The baseline of a measured speedup comes from Calibration events (what plain decoding costs:
measured by the local backend, assumed by the simulator, given on the command line) or,
failing those, from this run's own plain rounds: a round that drafted nothing is one plain
step, so their mean duration is plain decoding's time per token.

Totals (a server's exact counts at the end of a request) close a request: they replace the
counts of the rounds folded since the previous Totals (or the start), never add to them, so a
request's drafts are counted once. Replaced: drafted and accepted (the server's); tokens (the
server's where it counted them); rounds = tokens − accepted (every target forward emits its
accepted drafts plus one token of its own); drafting rounds = the verify steps where given,
else every forward after the prompt's; verified and per-position counts from the per-position
accepted counts where given (position k is verified when all before it were accepted), else
verified = accepted + drafting rounds, at most drafted (each step taken to end in a rejection:
α then reads low when steps accept all their drafts) and the rounds' per-position counts stay.
Not replaced: the window, the histories and the timing, which follow the rounds as streamed.
`exact_totals` names the numbers (BackendInfo.exact keys) that rest on such totals for the
whole run: the gauges say "exact totals, rounds inferred" for them. The requests' totals are
summed as numbers and a short set of source names (kernel/totals.py: TotalsSum), in constant work
per request; a sum past the bound on a count is refused (Invalid) before anything changes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from copy import deepcopy
from dataclasses import dataclass, field

from specview.boundary.bounds import MAX_ROUND_DRAFTS
from specview.kernel.calibration_fold import CalibrationFold
from specview.kernel.context_acceptance import ContextFold
from specview.kernel.drafters import DrafterFold
from specview.kernel.events import Calibration, Reconcile, Round, TokenEvent, TokenStatus
from specview.kernel.gamma_choice import GammaChoice
from specview.kernel.metrics_snapshot import MetricsSnapshot
from specview.kernel.spread import Moments, RateBatches
from specview.kernel.stream_kinds import fold_item
from specview.kernel.theory import expected_tau
from specview.kernel.totals import CrossChecked, Totals, TotalsSum
from specview.kernel.tree_cost import TreeNodes
from specview.kernel.what_if import WhatIfFold


@dataclass(slots=True)
class _Counts:
    """The counts a request's Totals replace, as they stood when the previous request closed."""

    rounds: int = 0
    tokens: int = 0
    drafted: int = 0
    accepted: int = 0
    verified: int = 0
    verified_at: list[int] = field(default_factory=list)
    accepted_at: list[int] = field(default_factory=list)
    gamma_counts: dict[int, int] = field(default_factory=dict)


MAX_GAMMA_CHOICES = 256  # `--gamma auto` decisions kept (it decides every 8 rounds at most, on a change)


def _ratio(num: float, den: float) -> float | None:
    return num / den if den > 0 else None


def _summed(before: list[int], request: list[int]) -> list[int]:
    width = max(len(before), len(request))
    return [(before[k] if k < len(before) else 0) + (request[k] if k < len(request) else 0) for k in range(width)]


class Metrics:
    """Fold Rounds one at a time; `snapshot()` is cheap enough to call every frame."""

    def __init__(self, window: int = 64, history: int = 240) -> None:
        self.window_size = window
        self._window: deque[tuple[float, int, int, int]] = deque(maxlen=window)
        self._win_tokens = 0
        self._win_verified = 0
        self._win_accepted = 0
        self._tau_history: deque[float] = deque(maxlen=history)
        self._alpha_history: deque[float] = deque(maxlen=history)
        self.rounds = 0
        self.tokens = 0
        self.drafted = 0
        self.accepted = 0
        self.verified = 0
        self._verified_at: list[int] = []
        self._accepted_at: list[int] = []
        self._gamma_counts: dict[int, int] = {}
        self._t_start: float | None = None
        self._t_last: float | None = None
        self._rate_tokens = 0
        self._timed_rounds = 0
        self._timed_drafted = 0
        self._t_draft_sum = 0.0
        self._t_verify_sum = 0.0
        self._verify_all_sum = 0.0
        self._verify_all_n = 0
        self._cal = CalibrationFold()
        self._plain_round_times = Moments()
        self._batches = RateBatches()
        self._closed = _Counts()
        self._totals = TotalsSum()
        self._totals_cover: frozenset[str] = frozenset()
        self.cross_check: CrossChecked | None = None
        self.context = ContextFold()
        self.drafters = DrafterFold()
        self._gamma_history: deque[int] = deque(maxlen=history)
        self._gamma_choices: deque[GammaChoice] = deque(maxlen=MAX_GAMMA_CHOICES)
        self._tree_nodes = TreeNodes()  # a tree's verify batch, for its theory (kernel/tree_cost.py)
        self._what_if = WhatIfFold()  # what a tree would have had, over the chain rounds that kept q

    def copy(self) -> Metrics:
        """An independent copy of the fold so far (a session keeps one where a request began: a
        reconcile folds again from there). Windows and histories hold immutable items: copied flat."""
        flat = {id(value): value.copy() for value in vars(self).values() if isinstance(value, deque)}
        return deepcopy(self, flat)

    @property
    def calibrations(self) -> int:
        """Calibrations folded so far, set aside or not."""
        return self._cal.count

    # the metrics as a StreamFold (kernel/stream_kinds.py) -------------------
    def calibrate(self, cal: Calibration) -> None:
        """Fold in what plain decoding costs (kernel/calibration_fold.py: a later basis replaces an
        earlier one; a measured calibration taken on a busy machine is set aside)."""
        self._cal.add(cal)

    def cross_checked(self, item: CrossChecked) -> None:
        """Keep the last cross-check as it is."""
        self.cross_check = item

    def gamma_chosen(self, item: GammaChoice) -> None:
        self._gamma_choices.append(item)

    def add_round(self, rnd: Round) -> None:
        """Fold one round in: one copy of the fold, `add_rounds` (a batch of one costs its hoisting,
        about 0.8 µs over a 5 µs fold, nothing beside a local round's forwards)."""
        self.add_rounds((rnd,))

    def reconcile(self, item: Reconcile) -> None:
        """A fold alone cannot take back rounds: the session holds those a reconcile replaces
        (kernel/request_fold.py) and folds its rounds."""
        raise TypeError("a reconcile is folded by a Session, which holds the rounds it replaces")

    def add(self, item: Round | Calibration | Totals | CrossChecked | GammaChoice) -> None:
        """Fold one item in, by its kind (kernel/stream_kinds.py)."""
        if type(item) is Round:  # the path every round takes: no lookup
            self.add_rounds((item,))
        else:
            fold_item(self, item)

    def add_rounds(self, rounds: Sequence[Round]) -> None:
        """Fold rounds in, in order, as `add` folds each: a screen folds every round of every run
        it shows, so the per-round work is written out here once, with its lookups hoisted."""
        verified_at, accepted_at, gamma_counts = self._verified_at, self._accepted_at, self._gamma_counts
        context_add, drafters_add, gamma_history = self.context.add, self.drafters.add, self._gamma_history
        window, win_size = self._window, self._window.maxlen
        tau_history, alpha_history = self._tau_history, self._alpha_history
        rejected, accepted_status = TokenStatus.REJECTED, TokenStatus.ACCEPTED
        for rnd in rounds:
            emitted = accepted = 0
            for token in rnd.tokens:  # one pass (Round.emitted and .accepted would take two)
                status = token.status
                if status is not rejected:
                    emitted += 1
                    accepted += status is accepted_status
            drafted = rnd.drafted
            self.rounds += 1
            self.tokens += emitted
            self.drafted += drafted
            self.accepted += accepted
            gamma_counts[drafted] = gamma_counts.get(drafted, 0) + 1
            verified = min(accepted + 1, drafted)
            self.verified += verified
            if len(verified_at) < drafted:
                grow = [0] * (drafted - len(verified_at))
                verified_at.extend(grow)
                accepted_at.extend(grow)
            for k in range(verified):
                verified_at[k] += 1
            for k in range(min(accepted, drafted)):
                accepted_at[k] += 1
            context_add(emitted, drafted, verified, accepted)
            if drafted:  # a plain round is nobody's draft
                drafters_add(rnd.drafter, emitted, drafted, verified, accepted)
            gamma_history.append(drafted)
            if rnd.q_top:  # the local loop's drafting rounds: a tree's nodes, or a chain's what-if
                self._tree_nodes.add(rnd)
                self._what_if.add(rnd)
            t_wall = rnd.t_wall
            if not drafted and self._t_last is not None and len(rnd.tokens) == 1:
                self._add_plain_round(rnd.tokens[0], t_wall - self._t_last)
            self._add_timing(rnd, emitted)
            # the window of the last `window` rounds
            if len(window) == win_size:
                _, old_e, old_v, old_a = window[0]
                self._win_tokens -= old_e
                self._win_verified -= old_v
                self._win_accepted -= old_a
            window.append((t_wall, emitted, verified, accepted))
            self._win_tokens += emitted
            self._win_verified += verified
            self._win_accepted += accepted
            tau_history.append(self._win_tokens / len(window))
            if self._win_verified > 0:
                alpha_history.append(self._win_accepted / self._win_verified)

    def close_request(self, totals: Totals) -> None:
        """Replace the counts of the rounds since the last request closed by the server's totals
        (the rule is in the module docstring). Invalid, with nothing changed, when the requests'
        totals together would pass the bound on a count."""
        had_totals = self._totals.requests > 0
        self._totals.add(totals)
        before = self._closed
        tokens = totals.tokens if totals.tokens is not None else self.tokens - before.tokens
        rounds = max(0, tokens - totals.accepted)
        steps = rounds - 1 if totals.verify_steps is None else totals.verify_steps
        steps = max(0, min(steps, rounds))
        positions = totals.per_position
        if positions is not None:
            verified_at = [max(steps, positions[0]), *positions[:-1]] if positions else []
            self._verified_at = _summed(before.verified_at, verified_at)
            self._accepted_at = _summed(before.accepted_at, list(positions))
            verified = sum(verified_at)
        else:
            verified = min(totals.drafted, totals.accepted + steps)
        self.rounds = before.rounds + rounds
        self.tokens = before.tokens + tokens
        self.drafted = before.drafted + totals.drafted
        self.accepted = before.accepted + totals.accepted
        self.verified = before.verified + max(verified, totals.accepted)
        counts = dict(before.gamma_counts)
        if steps:
            gamma = min(MAX_ROUND_DRAFTS, max(1, round(totals.drafted / steps), len(positions or ())))
            counts[gamma] = counts.get(gamma, 0) + steps
        if rounds > steps:
            counts[0] = counts.get(0, 0) + rounds - steps
        self._gamma_counts = counts
        cover = {"tau"} if totals.tokens is not None else set()
        if positions is not None:
            cover |= {"acceptance", "per_position"}
        self._totals_cover = frozenset(cover) & (self._totals_cover if had_totals else frozenset(cover))
        self.context.new_request()
        self._closed = _Counts(self.rounds, self.tokens, self.drafted, self.accepted, self.verified,
                               list(self._verified_at), list(self._accepted_at), dict(counts))

    def _exact_totals(self) -> frozenset[str]:
        """What the totals make exact, while no round has come since the last request closed."""
        return self._totals_cover if self._totals.requests and self.rounds == self._closed.rounds else frozenset()

    def _add_plain_round(self, token: TokenEvent, since_last: float) -> None:
        """A round that drafted nothing is one plain step: its duration is plain decoding's cost.

        Timed from the previous round's end (the same clock as tokens/s): `since_last`; the first
        round also carries the prompt, and rounds whose plain status was inferred are not known
        to be plain (`add_rounds` passes only a later round's one token).
        """
        if token.status is TokenStatus.PLAIN and not token.inferred:
            self._plain_round_times.add(max(0.0, since_last))

    @property
    def gamma_choice(self) -> GammaChoice | None:
        """`--gamma auto`'s last decision (None: not an auto run), without a whole snapshot."""
        return self._gamma_choices[-1] if self._gamma_choices else None

    @property
    def drafting_rounds(self) -> int:
        """Rounds that drafted at least one token (a server's `num_drafts`)."""
        return sum(n for gamma, n in self._gamma_counts.items() if gamma > 0)

    @property
    def max_drafted(self) -> int:
        """The largest γ of any round so far (0 before the first draft)."""
        return max(self._gamma_counts, default=0)

    @property
    def accepted_by_position(self) -> tuple[int, ...]:
        """Accepted drafts at each position 1..γ (a server's `num_accepted_tokens_per_pos`)."""
        return tuple(self._accepted_at)

    def _add_timing(self, rnd: Round, emitted: int) -> None:
        if self._t_start is None:
            spent = (rnd.t_draft_s or 0.0) + (rnd.t_verify_s or 0.0)
            self._t_start = rnd.t_wall - spent
            self._batches.start(self._t_start)
            emitted = emitted if spent > 0 else 0  # the prompt's round counts only when it was timed
        self._rate_tokens += emitted
        self._batches.add(rnd.t_wall, emitted)
        self._t_last = rnd.t_wall
        if rnd.t_verify_s is not None:
            self._verify_all_sum += rnd.t_verify_s
            self._verify_all_n += 1
        if rnd.t_verify_s is not None and rnd.t_draft_s is not None and rnd.drafted > 0:
            self._timed_rounds += 1
            self._timed_drafted += rnd.drafted
            self._t_draft_sum += rnd.t_draft_s
            self._t_verify_sum += rnd.t_verify_s

    def _window_rate(self) -> float | None:
        if len(self._window) < 2:
            return None
        span = self._window[-1][0] - self._window[0][0]
        return _ratio(self._win_tokens - self._window[0][1], span)

    def _expected_tau(self, alpha: float | None) -> float | None:
        drafting = {g: n for g, n in self._gamma_counts.items() if g > 0}
        if alpha is None or not drafting:
            return None
        total = sum(self._gamma_counts.values())
        return sum(n * expected_tau(alpha, g) for g, n in self._gamma_counts.items()) / total

    def snapshot(self) -> MetricsSnapshot:
        alpha = _ratio(self.accepted, self.verified)
        elapsed = None
        if self._t_start is not None and self._t_last is not None:
            elapsed = self._t_last - self._t_start
        calibration = self._cal.calibration()
        return MetricsSnapshot(
            rounds=self.rounds,
            tokens=self.tokens,
            drafted=self.drafted,
            accepted=self.accepted,
            verified=self.verified,
            acceptance_rate=alpha,
            draft_yield=_ratio(self.accepted, self.drafted),
            tau=_ratio(self.tokens, self.rounds),
            tokens_per_second=_ratio(self._rate_tokens, elapsed or 0.0),
            window_acceptance_rate=_ratio(self._win_accepted, self._win_verified),
            window_tau=_ratio(self._win_tokens, len(self._window)),
            window_tokens_per_second=self._window_rate(),
            per_position_acceptance=tuple(
                _ratio(a, v) for a, v in zip(self._accepted_at, self._verified_at, strict=True)
            ),
            per_position_verified=tuple(self._verified_at),
            draft_cost=self._draft_cost(calibration),
            expected_tau=self._expected_tau(alpha),
            mean_gamma=_ratio(self.drafted, self.rounds),
            mean_verify_s=_ratio(self._verify_all_sum, self._verify_all_n),
            elapsed_s=elapsed,
            tau_history=tuple(self._tau_history),
            alpha_history=tuple(self._alpha_history),
            calibration=calibration,
            calibrations=self._cal.count,
            plain_round_s=self._plain_round_times.mean if self._plain_round_times.n else None,
            plain_rounds=self._plain_round_times.n,
            gamma_counts=tuple(sorted(self._gamma_counts.items())),
            tree_nodes=self._tree_nodes.means(),
            what_if=self._what_if.what_if() if self._what_if.rounds else None,
            totals=self._totals.totals(),
            totals_requests=self._totals.requests,
            exact_totals=self._exact_totals(),
            cross_check=self.cross_check,
            calibration_spread=self._cal.spreads.snapshot(),
            plain_repeats=self._cal.plain_repeats,
            calibrations_set_aside=self._cal.set_aside,
            set_aside_reason=self._cal.set_aside_reason,
            tokens_per_second_spread=self._batches.standard_error(self._t_last),
            rate_batches=self._batches.batches,
            plain_round_spread_s=self._plain_round_times.standard_error,
            context=self.context.snapshot(),
            gamma_history=tuple(self._gamma_history),
            drafters=self.drafters.snapshot(),
            gamma_choices=tuple(self._gamma_choices),
        )

    def _draft_cost(self, calibration: Calibration | None) -> float | None:
        """c = one draft step ÷ one 1-token target forward (Leviathan's definition).

        The 1-token forward comes from the calibration; without one, the mean verification
        stands in for it, which is right only where verifying costs one forward (the
        simulator assumes so and says it).
        """
        if not (self._timed_rounds and self._timed_drafted):
            return None
        per_draft = self._t_draft_sum / self._timed_drafted
        if calibration is not None and calibration.verify_costs_s:
            return per_draft / calibration.verify_costs_s[0]
        if self._t_verify_sum > 0:
            return per_draft / (self._t_verify_sum / self._timed_rounds)
        return None
