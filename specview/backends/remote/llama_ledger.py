"""llama-server's rounds rebuilt from cumulative counters at token positions, never from chunks.

Every chunk of a `timings_per_token` stream carries the slot's cumulative `predicted_n` (tokens
generated), `draft_n` (drafted) and `draft_n_accepted` (accepted), read when the chunk was
sent. The server adds a round's drafted count when it drafts and its accepted count just
before it sends the round's tokens, so the first chunk that shows a round's increments also
carries one of its tokens. But a token that leaves the text inside a UTF-8 character sends
no chunk at all (tools/server/server-context.cpp, `process_token`): `predicted_n` then jumps by
more than one, and a whole round can go unseen, its increments arriving with the next round's.

So tokens are placed by position (1 … predicted_n). A chunk whose `draft_n` rose reveals a
round; it starts at the earliest position left after the open round's `accepted + 1` tokens.
Positions between rounds are plain tokens: exact when they came in a chunk of their own
(another target forward), inferred otherwise (a replayed prefix's extra token, or a token
held back). When one chunk reveals more drafted tokens than one round drafts (γ, asked for, or the most one
round was seen to draft) and tokens arrived that no round claims, the increments span several
rounds: they are split into rounds of about γ, the accepted count shared out evenly, and marked
inferred (`merged` counts such chunks).
Totals (drafted, accepted, tokens) are exact either way; per-round and per-position counts are
exact when `merged` is 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

from specview.backends.remote.dialect import RoundMaker
from specview.boundary.bounds import MAX_CHUNK_TOKENS, MAX_ROUND_DRAFTS, Invalid, increase
from specview.kernel.events import Round
from specview.texts.catalog import Phrase

MAX_SPLIT_ROUNDS = 4  # more unseen rounds in one chunk than this are split evenly
MAX_SPLIT_CHOICES = 20_000  # splits weighed one by one at most (else an even share): bounded work


@dataclass(slots=True)
class _Chunk:
    """What arrived at one token position."""

    t: float
    ms: float
    verify_ms: float | None


@dataclass(slots=True)
class _Open:
    """The last revealed drafted round: its tokens may still be arriving."""

    start: int
    drafted: int
    accepted: int
    ms: float
    verify_ms: float | None
    inferred: bool


def split_counts(drafted: int, accepted: int, gamma: int, most: int,
                 seen: Sequence[int] = ()) -> list[tuple[int, int]]:
    """(drafted, accepted) per round when one chunk revealed `drafted` > γ drafts: at most `most`
    rounds of about γ drafts each. The accepted total is shared out as the rounds seen whole so
    far make most likely (`seen[a]` = how many accepted exactly a; add-one smoothed), so the
    per-position counts stay close to the true ones; evenly when nothing was seen yet."""
    if gamma <= 0 or drafted <= gamma or most <= 1:
        return [(drafted, accepted)]
    rounds = min(most, -(-drafted // gamma))
    sizes = [drafted // rounds + (1 if i < drafted % rounds else 0) for i in range(rounds)]
    accepted = min(accepted, drafted)
    best: tuple[float, tuple[int, ...]] | None = None  # (score, takes): ties go to earlier rounds
    if rounds <= MAX_SPLIT_ROUNDS and math.prod(size + 1 for size in sizes) <= MAX_SPLIT_CHOICES:
        weight = [seen[a] + 1 if a < len(seen) else 1 for a in range(max(sizes) + 1)]
        for takes in product(*(range(size + 1) for size in sizes)):
            if sum(takes) == accepted:
                # among equally likely splits the most even one (smallest spread)
                score = math.prod(weight[a] for a in takes) - 1e-9 * (max(takes) - min(takes))
                if best is None or (score, takes) > best:
                    best = (score, takes)
    if best is None:  # too many rounds to weigh: an even share, one at a time, round-robin
        even = [0] * rounds
        left = accepted
        while left:
            for i, size in enumerate(sizes):
                if left and even[i] < size:
                    even[i] += 1
                    left -= 1
        return list(zip(sizes, even, strict=True))
    return list(zip(sizes, best[1], strict=True))


class RoundLedger:
    """Feed it each chunk's cumulative counters; it returns the rounds that chunk completed."""

    def __init__(self, gamma: int | None = None) -> None:
        self.maker = RoundMaker()
        self.n = 0
        self.draft_n = 0
        self.accepted = 0
        self.gamma = gamma or 0  # the most drafts one round makes (asked for, or seen)
        self.merged = 0  # chunks that revealed more than one round
        self._seen: list[int] = []  # rounds seen whole, by accepted count
        self._texts: dict[int, str] = {}
        self._chunks: dict[int, _Chunk] = {}
        self._open: _Open | None = None
        self._done = 0  # positions already in yielded rounds
        self._last_ms: float | None = None

    def feed(self, n: int, draft_n: int, accepted: int, ms: float, text: str, t: float) -> list[Round]:
        """One chunk: cumulative counters, its text and its arrival time. Counters that go back,
        jump further than one chunk can carry, or accept more than was drafted are Invalid."""
        if accepted > draft_n:
            raise Invalid(Phrase("backenderr.ledger.accepted_over", accepted=accepted, draft_n=draft_n))
        added = increase(self.n, n, "timings.predicted_n", MAX_CHUNK_TOKENS)
        if added == 0:  # no new token: text released late ends the last token
            if text:
                at = max(self.n, 1)
                self._texts[at] = self._texts.get(at, "") + text
            return []
        # each new token may close a round of at most MAX_ROUND_DRAFTS drafts
        d_draft = increase(self.draft_n, draft_n, "timings.draft_n", MAX_ROUND_DRAFTS * added)
        d_acc = increase(self.accepted, accepted, "timings.draft_n_accepted", MAX_ROUND_DRAFTS * added)
        prev_n = self.n
        verify = None if self._last_ms is None or ms == self._last_ms else max(0.0, ms - self._last_ms)
        self._chunks[n] = _Chunk(t, ms, verify)
        self._texts[n] = self._texts.get(n, "") + text
        self.n, self.draft_n, self.accepted = n, draft_n, accepted
        self._last_ms = ms
        out: list[Round] = []
        if d_draft > 0:
            start = prev_n + 1
            if self._open is not None:
                start = max(start, self._open.start + self._open.accepted + 1)
            start = min(start, n)
            out += self._close_until(start - 1)
            # positions before this chunk's own token that no round claims: only there can whole
            # rounds have gone unseen (each takes at least one token)
            spare = n - start
            parts = split_counts(d_draft, max(0, d_acc), self.gamma, spare + 1, self._seen)
            if len(parts) > 1:
                self.merged += 1
            elif spare == 0:  # certainly one round
                if d_acc > d_draft or d_draft > MAX_ROUND_DRAFTS:
                    raise Invalid(Phrase("backenderr.ledger.one_round", drafted=d_draft, accepted=d_acc))
                self.gamma = max(self.gamma, d_draft)
                self._seen.extend([0] * (d_acc + 1 - len(self._seen)))
                self._seen[max(0, d_acc)] += 1
            share = None if verify is None else verify / len(parts)
            for drafted, acc in parts[:-1]:  # unseen rounds: their tokens all lie before this chunk's end
                out.append(self._round(start, drafted, acc, ms, share, inferred=True, end=start + acc))
                start += acc + 1
                self._done = start - 1
            drafted, acc = parts[-1]
            self._open = _Open(start, drafted, acc, ms, share, inferred=len(parts) > 1)
        elif d_acc > 0 and self._open is not None:  # accepted counted after its draft was shown
            self._open.accepted += d_acc
        return out

    def finish(self) -> list[Round]:
        """Every round still open when the stream ended."""
        return self._close_until(self.n)

    def _close_until(self, end: int) -> list[Round]:
        """Yield the open round and the plain tokens up to position `end`."""
        out: list[Round] = []
        open_ms = None
        if self._open is not None:
            o, self._open = self._open, None
            last = min(end, o.start + o.accepted)
            if last >= o.start:
                out.append(self._round(o.start, o.drafted, min(o.accepted, last - o.start + 1), o.ms,
                                       o.verify_ms, o.inferred, end=last))
                self._done = last
            open_ms = o.ms
        for pos in range(self._done + 1, end + 1):
            chunk = self._chunks.get(pos)
            own = chunk is not None and chunk.ms != open_ms
            info = chunk or self._next_chunk(pos)
            out.append(self.maker.plain(self._texts.get(pos, ""), info.t, info.verify_ms if own else None,
                                        inferred=not own))
        self._done = max(self._done, end)
        return out

    def _round(self, start: int, drafted: int, accepted: int, ms: float, verify_ms: float | None,
               inferred: bool, end: int) -> Round:
        texts = [self._texts.get(pos, "") for pos in range(start, end + 1)]
        info = self._next_chunk(end)
        verify_s = None if verify_ms is None else verify_ms / 1000.0
        return self.maker.drafted(drafted, accepted, texts, info.t, verify_s, inferred=inferred)

    def _next_chunk(self, pos: int) -> _Chunk:
        """The chunk that carried position `pos` (the first chunk at or after it)."""
        for at in range(pos, self.n + 1):
            if at in self._chunks:
                return self._chunks[at]
        return _Chunk(0.0, 0.0, None) if not self._chunks else self._chunks[max(self._chunks)]
