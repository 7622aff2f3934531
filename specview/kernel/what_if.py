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
    """Over a chain run's rounds: rejections where q's ranks were known, and how many of them the
    target's token was q's rank 2 or rank 3 at."""

    rejected: int = 0
    rank2: int = 0
    rank3: int = 0

    @classmethod
    def of(cls, rounds: Iterable[Round]) -> WhatIf:
        rejected = rank2 = rank3 = 0
        for rnd in rounds:
            if rnd.lost:  # a tree round: its siblings were verified, nothing to imagine
                continue
            for t in rnd.tokens:
                if t.status is TokenStatus.CORRECTED and t.q_rank is not None:
                    rejected += 1
                    rank2 += t.q_rank == 2
                    rank3 += t.q_rank == 3
        return cls(rejected, rank2, rank3)

    @property
    def width2(self) -> int:
        """Rejections a width-2 tree would have had the target's token for."""
        return self.rank2

    @property
    def width3(self) -> int:
        return self.rank2 + self.rank3
