"""What a tree would have bought a chain run: the rank in q of the target's token where q's rank 1 lost.

A round keeps q's top tokens at each draft position (`Round.q_top`) and each token its rank there
(`TokenEvent.q_rank`). Where a chain's draft (q's rank 1 when drafting greedily) was rejected, the
target's own token at that position is the corrected one: when it is q's rank 2, a tree of width 2
would have had it as a candidate, rank 3 one of width 3. Greedy, that tree keeps it (and verifies
one token further); at T > 0 the count says how often the target's draw was among the candidates,
which a tree's verifier then keeps with probability p of it (kernel/tree_sampling.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from specview.kernel.events import Round, TokenEvent, TokenStatus

_RANKED = (TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS)


def with_q_ranks(tokens: Sequence[TokenEvent], q_top: Sequence[Sequence[int]]) -> tuple[TokenEvent, ...]:
    """`tokens` with `q_rank` set where the position's top tokens are known (0: not among them)."""
    if not q_top:
        return tuple(tokens)
    out = []
    for t in tokens:
        k = t.position
        if t.status in _RANKED and k is not None and k < len(q_top) and t.token_id is not None:
            top = q_top[k]
            rank = top.index(t.token_id) + 1 if t.token_id in top else 0
            t = replace(t, q_rank=rank)
        out.append(t)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class WhatIf:
    """Over a chain run's rounds: the rounds that kept q's top tokens (`rounds`, the basis), the
    rejections among them, and how many of those the target's token was q's rank 2 or 3 at."""

    rejected: int = 0
    rank2: int = 0
    rank3: int = 0
    rounds: int = 0

    @classmethod
    def of(cls, rounds: Iterable[Round]) -> WhatIf:
        fold = WhatIfFold()
        for rnd in rounds:
            fold.add(rnd)
        return fold.what_if()

    @property
    def width2(self) -> int:
        """Rejections a width-2 tree would have had the target's token for."""
        return self.rank2

    @property
    def width3(self) -> int:
        return self.rank2 + self.rank3

    def share(self, width: int) -> float | None:
        """The share of the rejections a tree of this width (2 or 3) would have had it for."""
        if not self.rejected:
            return None
        return (self.width2 if width == 2 else self.width3) / self.rejected

    def to_dict(self) -> dict[str, Any]:
        """`bench --json`'s `what_if`: the counts, the shares and their basis (rounds counted)."""
        return {"rounds": self.rounds, "rejected": self.rejected, "rank2": self.rank2, "rank3": self.rank3,
                "width2": self.width2, "width3": self.width3,
                "share_width2": _round(self.share(2)), "share_width3": _round(self.share(3))}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


class WhatIfFold:
    """The what-if counted one round at a time (kernel/metrics.py folds it with everything else)."""

    __slots__ = ("rank2", "rank3", "rejected", "rounds")

    def __init__(self) -> None:
        self.rounds = self.rejected = self.rank2 = self.rank3 = 0

    def add(self, rnd: Round) -> None:
        if rnd.lost or not rnd.q_top:  # a tree round (its siblings were verified: nothing to imagine), or no q
            return
        self.rounds += 1
        for t in rnd.tokens:
            if t.status is TokenStatus.CORRECTED and t.q_rank is not None:
                self.rejected += 1
                self.rank2 += t.q_rank == 2
                self.rank3 += t.q_rank == 3

    def what_if(self) -> WhatIf:
        return WhatIf(self.rejected, self.rank2, self.rank3, self.rounds)
