"""What a tree round costs, for the theory: its verify batch holds every node, not just its depth.

A chain round of γ drafts verifies γ + 1 tokens and costs γ draft steps, so its speedup is
τ / (γc + v(γ)). A tree round of depth D verifies all its nodes in one batch: W × D + 1 tokens
for `--tree WxD` (kernel/tree_shape.py), so its verify cost is v(nodes), not v(D); counting v(D)
made a tree look cheaper than it was (the v(k) of a CPU rises with k). Its draft cost is that of
every draft forward it ran: the local tree drafter (backends/local/tree.py) runs one per depth,
since a depth's W candidates are q's top W of one forward, so D steps of c, which is also what
the run's measured c (draft time ÷ drafted depth) charges.

The fold keeps, per round depth γ, the mean nodes of the tree rounds that drafted γ (a round
keeps its path in `tokens` and every other node in `lost`), so the overlay finds v(nodes)
where a chain finds v(γ).
"""

from __future__ import annotations

from specview.kernel.events import Round, TokenStatus


def tree_nodes(rnd: Round) -> int:
    """The drafted nodes a tree round verified: its accepted path, the rejected node it shows,
    and every node that lost (rejected beside the path, or below a rejected one)."""
    judged = sum(1 for t in rnd.tokens if t.status in (TokenStatus.ACCEPTED, TokenStatus.REJECTED))
    return judged + len(rnd.lost)


class TreeNodes:
    """Per round depth: tree rounds and their nodes (a chain run leaves it empty)."""

    __slots__ = ("_by_gamma",)

    def __init__(self) -> None:
        self._by_gamma: dict[int, list[int]] = {}  # γ -> [rounds, nodes]

    def add(self, rnd: Round) -> None:
        if not rnd.lost:  # a chain round (or a tree round that lost nothing: a width-1 tree is a chain)
            return
        seen = self._by_gamma.setdefault(rnd.drafted, [0, 0])
        seen[0] += 1
        seen[1] += tree_nodes(rnd)

    def means(self) -> tuple[tuple[int, float], ...]:
        """(γ, mean nodes of the tree rounds that drafted γ), γ ascending."""
        return tuple((g, nodes / n) for g, (n, nodes) in sorted(self._by_gamma.items()))


def verify_drafts(gamma: int, tree_means: tuple[tuple[int, float], ...]) -> int:
    """The drafts a round of depth γ puts in its verify batch: γ for a chain, the tree's nodes
    for a tree (so its cost is v(verify_drafts) = cost(nodes + 1) ÷ cost(1))."""
    for g, nodes in tree_means:
        if g == gamma:
            return max(gamma, round(nodes))
    return gamma
