"""Watching a whole server: successive /metrics scrapes folded into rates, with resets and checks.

`specview watch` sends no prompt of its own. Every poll yields a `Scrape` of the server's
cumulative counters (speculative drafts, drafted and accepted tokens, accepted per draft
position, generated tokens) and gauges (requests running). `WatchModel.feed` turns two
successive scrapes into a `WatchSample`: the deltas over the interval and their rates.

- Generated tokens count the counter plus the tokens of requests still running when the
  server tells them (llama-server adds a request to /metrics only when it ends; its /slots
  show the running ones), so tokens/s does not arrive in bursts. /metrics is read before
  /slots, so a request that ends between the two reads is missing from both for one poll (the
  sum dips, never overshoots): tokens are counted from the highest sum seen, and the dip is
  made up at the next poll instead of being counted twice.
- Per-position counts are kept for positions 0 … MAX_GAMMA − 1, the most drafts per round
  specview shows: a `position` label is a number from outside, never a size to allocate. Series
  beyond it are counted (`positions_beyond`) and said once, in a note with the first sample; α then
  rests on the counts (the series no longer describe every draft) and Σ per-position = accepted is
  not checked (the sum lacks them).
- A counter that goes down means the server restarted: the sample is marked `reset`, and the
  new values count from zero (what Prometheus' rate() assumes), so nothing goes negative.
- Counter invariants are checked on every scrape and every delta: accepted ≤ drafted,
  drafts ≤ drafted tokens, Σ per-position = accepted, per-position counts never rising with
  the position (accepting draft k needs draft k − 1 accepted) and never above the drafts.
  Broken ones are reported as `Violation`s (an engine bug, or a counter-accounting change).
- Derived numbers, each named for what it divides (the engines' dashboards use other words for
  some: docs, page "definitions"): the acceptance rate in the engines' sense = accepted / drafted
  (vLLM's dashboard and `vllm bench serve`; specview's "yield", `draft_yield`); drafts/s counts
  verify steps (vLLM's `num_drafts`), draft tokens/s the tokens drafted; the draft share =
  accepted / generated (the dashboard's "output from drafts"); α (Leviathan's, accepted /
  verified) comes from the position series only where they describe every draft (drafted =
  drafts × series: a round with a accepted verified min(a + 1, γ) drafts), else from the
  counts, as the lowest α they allow, never below the yield (`verified_drafts`; the sample
  says which: `alpha_basis`); per-position acceptance is conditional,
  P(k accepted | k verified) = count[k] / count[k − 1] (count[−1] = drafts), converted from
  the marginal counts servers publish (`theory.conditional_from_marginal`), and marginal, count[k]
  / drafts (vLLM's dashboard panel "acceptance rate by draft position" and its log); mean accepted
  length = 1 + accepted / drafts (vLLM's).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from specview.features.watch.model.invariants import Violation, check_invariants
from specview.features.watch.model.ratios import (
    draft_share,
    draft_yield,
    marginal_rates,
    mean_accepted_length,
    width_notes,
)
from specview.kernel.backend import Note
from specview.kernel.theory import MAX_GAMMA, conditional_from_marginal

MAX_POSITIONS = MAX_GAMMA  # position series kept: 0 … MAX_GAMMA − 1 (the rest counted, never allocated)
# where α's denominator (the verified drafts) comes from: the per-position series, exact when they
# describe every draft, or the counts alone, a bound (`verified_drafts`)
POSITIONS = "positions"
COUNTS = "counts"
LOWER_BOUND = "lower_bound"  # per-position acceptance after position 0, with α's basis COUNTS
EXACT = "exact"  # per-position acceptance that is what it says (the series describe every draft)
# what a per-position series divides by (the `*_basis` keys of the JSON)
CONDITIONAL = "conditional"  # accepted at k ÷ verified at k (accepted at k − 1; drafts for k = 0)
MARGINAL = "marginal"  # accepted at k ÷ drafts (vLLM's dashboard, its log and `vllm bench serve`)


@dataclass(frozen=True, slots=True)
class Scrape:
    """One poll of a server: cumulative counters (None where the server has none) and gauges."""

    t: float
    drafts: int | None = None
    draft_tokens: int | None = None
    accepted: int | None = None
    per_position: tuple[int, ...] = ()
    tokens: int | None = None  # generated tokens (all requests), as the counter says
    in_flight: int | None = None  # tokens of requests still running, not in the counter yet
    active: float | None = None  # requests running now
    gauges: dict[str, float] = field(default_factory=dict)  # e.g. SGLang's accept length / rate
    notes: tuple[Note, ...] = ()  # about the scrape itself, e.g. /metrics lines too long to read
    positions_beyond: int = 0  # position series past MAX_POSITIONS a source counted and did not read
    cadence: str | None = None  # when the counters move: "step" or "request_end" (ServerKind.counters_update)
    verify_calls: int | None = None  # verify steps counted when requests end (SGLang), for τ from counters
    requests_done: int | None = None  # requests finished (SGLang)
    width: float | None = None  # the configured draft width an accept-rate gauge divides by (its mean over ranks)


@dataclass(frozen=True, slots=True)
class WatchSample:
    """What happened between two scrapes (or since a restart, when `reset`)."""

    t: float
    dt: float
    drafts: int
    draft_tokens: int
    accepted: int
    per_position: tuple[int, ...]
    tokens: int | None
    active: float | None
    reset: bool = False
    violations: tuple[Violation, ...] = ()
    gauges: dict[str, float] = field(default_factory=dict)  # the server's own gauges, as they are
    notes: tuple[Note, ...] = ()  # the scrape's notes (catalog `note.<id>`), e.g. lines skipped
    # positions verified, where the sample sums servers of different γ (a fleet's totals): α is
    # then accepted ÷ this, not inferred from the summed per-position counts (None: inferred)
    verified: int | None = None
    verified_basis: str | None = None  # POSITIONS or COUNTS, with `verified`
    positions_beyond: int = 0  # position series past MAX_POSITIONS, counted, not read (see the module docstring)
    cadence: str | None = None  # when the counters move (Scrape.cadence): "request_end" rates come in steps
    verify_calls: int | None = None  # Δ verify steps of the requests that ended (SGLang), with requests_done
    requests_done: int | None = None

    @property
    def accept_length_from_requests(self) -> float | None:
        """τ over the requests that ended in the window, from counters: (generated − requests) ÷
        verify steps (a request's first token comes from prefill); a check on SGLang's gauge."""
        if not self.verify_calls or self.tokens is None or self.requests_done is None:
            return None
        return (self.tokens - self.requests_done) / self.verify_calls

    def _rate(self, n: int | None) -> float | None:
        return None if n is None or self.dt <= 0 else n / self.dt

    @property
    def drafts_per_s(self) -> float | None:
        """Drafts (verify steps) per second: vLLM's `num_drafts`, the dashboard's "Drafts/s"."""
        return self._rate(self.drafts)

    @property
    def draft_tokens_per_s(self) -> float | None:
        """Tokens drafted per second: the dashboard's "Draft tokens/s"."""
        return self._rate(self.draft_tokens)

    @property
    def accepted_per_s(self) -> float | None:
        return self._rate(self.accepted)

    @property
    def tokens_per_s(self) -> float | None:
        return self._rate(self.tokens)

    @property
    def draft_yield(self) -> float | None:
        return draft_yield(self.draft_tokens, self.accepted)

    @property
    def acceptance_rate(self) -> float | None:
        """The engines' "acceptance rate", accepted ÷ drafted (vLLM's dashboard, `vllm bench
        serve`): the yield under the name they print it by, not α."""
        return self.draft_yield

    @property
    def draft_share(self) -> float | None:
        """Accepted draft tokens ÷ generated tokens: the dashboard's "output from drafts"."""
        return draft_share(self.accepted, self.tokens)

    @property
    def alpha(self) -> float | None:
        verified = self._verified()
        return self.accepted / verified[0] if verified is not None and verified[0] > 0 else None

    @property
    def alpha_basis(self) -> str | None:
        """POSITIONS or COUNTS: what α's denominator rests on (None: no α)."""
        verified = self._verified()
        return verified[1] if verified is not None and verified[0] > 0 else None

    def _verified(self) -> tuple[int, str] | None:
        if self.verified is not None:
            return self.verified, self.verified_basis or POSITIONS
        return verified_drafts(self.drafts, self.draft_tokens, self.accepted, self.per_position,
                               beyond=self.positions_beyond)

    @property
    def mean_accepted_length(self) -> float | None:
        return mean_accepted_length(self.drafts, self.accepted)

    @property
    def per_position_acceptance(self) -> tuple[float | None, ...]:
        return tuple(conditional_from_marginal(self.per_position, self.drafts))

    @property
    def per_position_marginal(self) -> tuple[float, ...]:
        """Accepted at position k ÷ drafts: vLLM's dashboard and log (never above the conditional)."""
        return marginal_rates(self.per_position, self.drafts)

    @property
    def per_position_bound(self) -> bool:
        """Whether per-position acceptance after position 0 is only a lower bound: with drafts
        shorter than the series (α's basis COUNTS), position k's denominator — the drafts that
        accepted k − 1 — counts drafts that ended there and had no position k to verify, so
        accepted(k) ÷ accepted(k − 1) can only understate it. Position 0 is exact either way:
        every draft has a first token."""
        return self.alpha_basis == COUNTS

    def to_dict(self) -> dict[str, Any]:
        """One JSON-ready object (`specview watch --json` prints one per poll)."""
        return {
            "t": round(self.t, 3), "dt": round(self.dt, 3), "reset": self.reset,
            "drafts": self.drafts, "draft_tokens": self.draft_tokens, "accepted": self.accepted,
            "per_position": list(self.per_position), "tokens": self.tokens, "active": self.active,
            "drafts_per_s": _r(self.drafts_per_s), "draft_tokens_per_s": _r(self.draft_tokens_per_s),
            "accepted_per_s": _r(self.accepted_per_s), "tokens_per_s": _r(self.tokens_per_s),
            **self.ratios(),
            "counters_update": self.cadence,
            "violations": [v.to_dict() for v in self.violations], "gauges": dict(self.gauges),
            "notes": [n.to_dict() for n in self.notes],
        }


    def ratios(self) -> dict[str, Any]:
        """The window's ratios as JSON keys, each named for what it divides (the direct watch's
        and the fleet's JSON share them): α with its basis, the engines' acceptance rate, the draft
        share, the mean accepted length, and the per-position series, conditional and marginal,
        each with a `_basis` saying which (the module docstring)."""
        conditional = self.per_position_acceptance
        told = any(a is not None for a in conditional)  # a series of None (no drafts) has no basis
        return {
            "alpha": _r(self.alpha), "alpha_basis": self.alpha_basis,
            "acceptance_rate": _r(self.acceptance_rate), "draft_yield": _r(self.draft_yield),
            "draft_share": _r(self.draft_share), "mean_accepted_length": _r(self.mean_accepted_length),
            "accept_length_from_requests": _r(self.accept_length_from_requests),
            "per_position_acceptance": [_r(a) for a in conditional],
            "per_position_acceptance_basis": CONDITIONAL if told else None,
            # "lower_bound": every conditional value after position 0 is at least what it says
            # (drafts shorter than the series); "exact"; None: no acceptance to tell
            "per_position_bound": None if not told else (LOWER_BOUND if self.per_position_bound else EXACT),
            "per_position_marginal": [_r(a) for a in self.per_position_marginal],
            "per_position_marginal_basis": MARGINAL if self.per_position_marginal else None,
        }


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def verified_drafts(drafts: int, draft_tokens: int, accepted: int,
                    per_position: tuple[int, ...], *, beyond: int = 0) -> tuple[int, str] | None:
    """The draft positions the target verified (α's denominator) and what that rests on (None
    without drafts).

    The position series tell it exactly when every draft had one token per series (drafted =
    drafts × series): every draft verifies position 0, position k the drafts that accepted k − 1.
    Shorter drafts break that (llama-server's n-gram drafts what it finds, up to its m of 48
    series): a fully accepted short draft verified no position after its last, which the
    series cannot tell apart. Then the counts: verified = accepted + rejections, and a draft
    rejects at most once and only a token it drafted, so α ≥ accepted ÷ (accepted + min(drafts,
    drafted − accepted)) ≥ accepted ÷ drafted, the yield: the lowest α the counts allow. With
    `beyond` series left unread (past MAX_POSITIONS) the series never describe every draft.
    """
    if drafts <= 0:
        return None
    if per_position and not beyond and draft_tokens == drafts * len(per_position):
        return drafts + sum(per_position[:-1]), POSITIONS
    return accepted + max(0, min(drafts, draft_tokens - accepted)), COUNTS


class WatchModel:
    """Fold scrapes into samples; keeps totals since watching began and a bounded history."""

    def __init__(self, history: int = 240) -> None:
        self._last: Scrape | None = None
        self.first: Scrape | None = None  # the scrape the totals count from (counters None after a restart)
        self._high = 0  # the highest generated-token sum (counter + in flight) seen since a reset
        self.history: deque[WatchSample] = deque(maxlen=history)
        self.resets = 0
        self.total_drafts = 0
        self.total_draft_tokens = 0
        self.total_accepted = 0
        self.total_tokens = 0
        self.total_per_position: list[int] = []
        self.violations: deque[Violation] = deque(maxlen=50)
        self.started: float | None = None
        self._beyond_said = False  # the note about position series past MAX_POSITIONS (said once)

    @property
    def last(self) -> Scrape | None:  # the latest scrape, as the server said it (cumulative counters)
        return self._last

    @property
    def has_drafts(self) -> bool:
        """Whether the server publishes speculative counters at all."""
        return self._last is not None and self._last.draft_tokens is not None

    def feed(self, scrape: Scrape) -> WatchSample | None:
        """Fold one scrape; the sample since the previous one (None for the first)."""
        last, self._last = self._last, scrape
        if self.started is None:
            self.started = scrape.t
        if last is None:
            self.first = scrape
            self._high = (scrape.tokens or 0) + (scrape.in_flight or 0)
        beyond = scrape.positions_beyond + max(0, len(scrape.per_position) - MAX_POSITIONS)
        broken = check_invariants(scrape.drafts or 0, scrape.draft_tokens or 0, scrape.accepted or 0,
                                  scrape.per_position[:MAX_POSITIONS], "scrape", complete=not beyond)
        if last is None:
            self.violations.extend(broken)
            return None
        reset = _went_down(last, scrape)
        base = Scrape(last.t) if reset else last
        d_drafts = (scrape.drafts or 0) - (base.drafts or 0)
        d_tokens = (scrape.draft_tokens or 0) - (base.draft_tokens or 0)
        d_acc = (scrape.accepted or 0) - (base.accepted or 0)
        width = min(MAX_POSITIONS, max(len(scrape.per_position), len(base.per_position)))  # never a label's number
        d_pos = tuple(_at(scrape.per_position, k) - _at(base.per_position, k) for k in range(width))
        generated = None
        if scrape.tokens is not None:  # requests in flight count as they go, not when they end
            now = scrape.tokens + (scrape.in_flight or 0)
            high = 0 if reset else self._high
            generated = max(0, now - high)
            self._high = max(high, now)
        broken += check_invariants(d_drafts, d_tokens, d_acc, d_pos, "delta", complete=not beyond)
        notes = scrape.notes + width_notes(base.width, scrape.width)
        if beyond and not self._beyond_said:
            self._beyond_said = True
            notes = (*notes, Note("positions_beyond", {"n": str(beyond), "most": str(MAX_POSITIONS)}))
        sample = WatchSample(scrape.t, scrape.t - last.t, d_drafts, d_tokens, d_acc, d_pos, generated,
                             scrape.active, reset, tuple(broken), dict(scrape.gauges), notes,
                             positions_beyond=beyond, cadence=scrape.cadence,
                             verify_calls=_delta(base.verify_calls, scrape.verify_calls),
                             requests_done=_delta(base.requests_done, scrape.requests_done))
        self.resets += reset
        self.first = Scrape(last.t) if reset else self.first  # after a restart: no base for the counters
        self.total_drafts += d_drafts
        self.total_draft_tokens += d_tokens
        self.total_accepted += d_acc
        self.total_tokens += generated or 0
        if len(self.total_per_position) < width:
            self.total_per_position.extend([0] * (width - len(self.total_per_position)))
        for k, n in enumerate(d_pos):
            self.total_per_position[k] += n
        self.violations.extend(broken)
        self.history.append(sample)
        return sample

    def totals(self) -> WatchSample:
        """Everything since watching began, as one sample."""
        t = self._last.t if self._last is not None else 0.0
        return WatchSample(t, t - (t if self.started is None else self.started), self.total_drafts,
                           self.total_draft_tokens, self.total_accepted, tuple(self.total_per_position),
                           self.total_tokens, self._last.active if self._last else None,
                           cadence=self._last.cadence if self._last else None)


def _delta(before: int | None, now: int | None) -> int | None:
    return None if now is None else now - (before or 0)


def _at(values: tuple[int, ...], k: int) -> int:
    return values[k] if k < len(values) else 0


def _went_down(before: Scrape, now: Scrape) -> bool:
    """Any cumulative counter lower than before: the server restarted (or reset its counters)."""
    pairs = [(before.drafts, now.drafts), (before.draft_tokens, now.draft_tokens),
             (before.accepted, now.accepted), (before.tokens, now.tokens),
             (before.verify_calls, now.verify_calls), (before.requests_done, now.requests_done)]
    kept = min(len(before.per_position), MAX_POSITIONS)
    pairs += [(_at(before.per_position, k), _at(now.per_position, k)) for k in range(kept)]
    return any(b is not None and n is not None and n < b for b, n in pairs)
