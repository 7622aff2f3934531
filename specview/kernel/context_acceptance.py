"""Acceptance against context position: a run's rounds folded into buckets of position.

Acceptance can fall as the context grows (an MTP head or an EAGLE drafter trained on short
sequences, a drafter's sliding window): one α for the whole run hides that. A round is put in
the bucket of the position its first token takes; positions count from the end of the prompt,
so the absolute position of a bucket is the prompt's length plus its output positions (the
prompt is context too: a 30K-token prompt starts the output at position 30K). Where the prompt's
length is unknown (a server that does not say) the buckets are of output position only, and
`acceptance_json` says so.

Buckets are `width` tokens wide and at most MAX_BUCKETS many: when a run outgrows them,
neighbours merge pairwise and the width doubles, so memory stays bounded however long the run.
Each bucket keeps the counts it is made of (rounds, drafted, verified, accepted), so the
buckets add up to the run's counts over the same rounds. A request's totals (servers that
count only at the end) replace the run's counts but not the buckets: those follow the rounds
as streamed. A new request starts again at its prompt's end.

The decay detector compares the latest bucket with enough verified drafts against the first:
decay when the first's α exceeds the latest's by more than DECAY_Z standard errors of the
difference (and by at least MIN_DROP), so noise in small buckets does not raise it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from specview.kernel.stats import wilson

MAX_BUCKETS = 32
FIRST_WIDTH = 64  # tokens per bucket until a run outgrows MAX_BUCKETS of them
MIN_VERIFIED = 30  # verified drafts a bucket needs before the detector compares it
DECAY_Z = 3.0  # standard errors: drafts within a round are not independent, so be strict
MIN_DROP = 0.02  # a smaller fall is not worth a mark, however many rounds show it


@dataclass(frozen=True, slots=True)
class ContextBucket:
    """The rounds that began at output positions [start, end)."""

    start: int
    end: int
    rounds: int = 0
    drafted: int = 0
    verified: int = 0
    accepted: int = 0

    @property
    def alpha(self) -> float | None:
        """accepted ÷ verified (Leviathan's α) over the bucket's rounds."""
        return self.accepted / self.verified if self.verified else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """95 % Wilson interval of α (drafts taken as independent trials: it is too narrow where
        they are not, which is why the detector asks for DECAY_Z standard errors)."""
        return wilson(self.accepted, self.verified)


@dataclass(frozen=True, slots=True)
class Decay:
    """The first bucket against the latest one with enough verified drafts."""

    first: ContextBucket
    last: ContextBucket
    drop: float  # α(first) − α(last)
    z: float  # drop in standard errors of the difference (inf when both are certain)
    detected: bool


@dataclass(frozen=True, slots=True)
class ContextAcceptance:
    """The buckets at one instant (output positions; the prompt's length is added when shown)."""

    width: int
    buckets: tuple[ContextBucket, ...]

    def decay(self) -> Decay | None:
        """The decay detector (None until two buckets have MIN_VERIFIED verified drafts)."""
        ready = [b for b in self.buckets if b.verified >= MIN_VERIFIED]
        if len(ready) < 2:
            return None
        first, last = ready[0], ready[-1]
        p1, p2 = first.accepted / first.verified, last.accepted / last.verified
        drop = p1 - p2
        se = math.sqrt(p1 * (1 - p1) / first.verified + p2 * (1 - p2) / last.verified)
        z = drop / se if se > 0 else (math.inf if drop > 0 else 0.0)
        return Decay(first, last, drop, z, drop >= MIN_DROP and z > DECAY_Z)


class ContextFold:
    """Fold rounds into position buckets, one round at a time (part of the Metrics fold)."""

    def __init__(self, width: int = FIRST_WIDTH, max_buckets: int = MAX_BUCKETS) -> None:
        if width < 1 or max_buckets < 2:
            raise ValueError("a bucket is at least one token wide, and there are at least two")
        self.width = width
        self.max_buckets = max_buckets
        self.position = 0  # output position of the next round's first token
        self._counts: list[list[int]] = []  # per bucket: rounds, drafted, verified, accepted

    def add(self, emitted: int, drafted: int, verified: int, accepted: int) -> None:
        """One round that emitted `emitted` tokens from the current position."""
        index = self.position // self.width
        while index >= self.max_buckets:
            self._merge()
            index = self.position // self.width
        while len(self._counts) <= index:
            self._counts.append([0, 0, 0, 0])
        counts = self._counts[index]
        counts[0] += 1
        counts[1] += drafted
        counts[2] += verified
        counts[3] += accepted
        self.position += emitted

    def new_request(self) -> None:
        """The next round starts a new request: back to the end of its prompt."""
        self.position = 0

    def _merge(self) -> None:
        pairs = [self._counts[i:i + 2] for i in range(0, len(self._counts), 2)]
        self._counts = [[sum(c[k] for c in pair) for k in range(4)] for pair in pairs]
        self.width *= 2

    def snapshot(self) -> ContextAcceptance:
        w = self.width
        return ContextAcceptance(w, tuple(ContextBucket(i * w, (i + 1) * w, *c) for i, c in enumerate(self._counts)))


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def acceptance_json(ctx: ContextAcceptance | None, prompt_tokens: int | None) -> dict[str, Any] | None:
    """`acceptance_by_context` of `bench --json` and `replay --json`: the buckets with absolute
    positions (prompt + output) where the prompt's length is known, and the detector's verdict."""
    if ctx is None:
        return None
    offset = prompt_tokens or 0
    buckets = []
    for b in ctx.buckets:
        interval = b.interval
        buckets.append({
            "from": offset + b.start, "to": offset + b.end, "rounds": b.rounds, "drafted": b.drafted,
            "verified": b.verified, "accepted": b.accepted, "alpha": _rounded(b.alpha),
            "low": None if interval is None else _rounded(interval[0]),
            "high": None if interval is None else _rounded(interval[1]),
        })
    decay = ctx.decay()
    return {
        "position": "output" if prompt_tokens is None else "prompt+output",
        "prompt_tokens": prompt_tokens,
        "bucket_tokens": ctx.width,
        "buckets": buckets,
        "decay": None if decay is None else {
            "detected": decay.detected, "first": _rounded(decay.first.alpha), "last": _rounded(decay.last.alpha),
            "drop": _rounded(decay.drop), "z": None if math.isinf(decay.z) else round(decay.z, 2),
            "first_from": offset + decay.first.start, "last_from": offset + decay.last.start,
        },
    }
