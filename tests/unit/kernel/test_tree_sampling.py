"""The tree sampler: what it emits follows the target's p for any draft q, with top-k or i.i.d. children;
greedy walks the target's argmax through the tree."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from specview.kernel.events import TokenStatus
from specview.kernel.sampling import sample, verify_greedy, verify_sampling
from specview.kernel.tree_sampling import DraftTree, verify_tree_greedy, verify_tree_sampling

DRAWS = 10_000
V = 5
TOP_K, IID, MIXED = "top-k", "iid", "mixed"  # children chosen, drawn from q, or the first drawn and the rest chosen


def _dists() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """p0, q0 at the root; p1[x], q1[x] after token x (the target's and draft's next rows)."""
    rng = np.random.default_rng(7)
    p0 = np.array([0.35, 0.05, 0.3, 0.0, 0.3])  # a token the target never emits
    q0 = np.array([0.1, 0.5, 0.1, 0.2, 0.1])  # q's favourite is one the target rarely wants
    p1 = rng.dirichlet(np.ones(V), size=V)
    q1 = rng.dirichlet(np.full(V, 0.5), size=V)
    return p0, q0, p1, q1


def _tree(q0: np.ndarray, q1: np.ndarray, width: int, proposal: str,
          rng: np.random.Generator) -> tuple[DraftTree, list[int]]:
    """A depth-2 tree of `width` children per node: q's top-k, drawn i.i.d. from q (repeats allowed),
    or one drawn from q followed by q's top others (what the local loop drafts at T > 0)."""

    def pick(q: np.ndarray) -> list[tuple[int, bool]]:
        ranked = [int(t) for t in np.argsort(-q, kind="stable")]
        if proposal == TOP_K:
            return [(t, False) for t in ranked[:width]]
        if proposal == IID:
            return [(sample(q, rng), True) for _ in range(width)]
        first = sample(q, rng)
        return [(first, True), *[(t, False) for t in ranked if t != first][:width - 1]]

    tokens, parents, drawn = [0], [-1], [False]
    for x, d in pick(q0):
        tokens.append(x)
        parents.append(0)
        drawn.append(d)
    for i in range(1, width + 1):
        for y, d in pick(q1[tokens[i]]):
            tokens.append(y)
            parents.append(i)
            drawn.append(d)
    return DraftTree(tuple(tokens), tuple(parents), drawn=tuple(drawn)), tokens


def _rows(tree: DraftTree, p0: np.ndarray, p1: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    rows = np.empty((len(tree.tokens), V))
    for i, depth in enumerate(tree.depths):
        rows[i] = p0 if depth == 0 else p1[tree.tokens[i]] if depth == 1 else np.full(V, 1 / V)
    return rows, None


def _q_rows(tree: DraftTree, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
    out = np.empty((len(tree.tokens), V))
    for i, depth in enumerate(tree.depths):
        out[i] = q0 if depth == 0 else q1[tree.tokens[i]] if depth == 1 else np.full(V, 1 / V)
    return out


@pytest.mark.parametrize("width", [2, 3])
@pytest.mark.parametrize("proposal", [TOP_K, IID, MIXED])
def test_tree_output_is_distributed_as_p(proposal: str, width: int) -> None:
    p0, q0, p1, q1 = _dists()
    rng = np.random.default_rng(11)
    first = np.zeros(V)
    second = np.zeros((V, V))
    kept_at_root = 0
    for _ in range(DRAWS):
        tree, _ = _tree(q0, q1, width, proposal, rng)
        rows, _ = _rows(tree, p0, p1)
        q_rows = _q_rows(tree, q0, q1) if proposal != TOP_K else None
        verdict = verify_tree_sampling(tree, rows, rng, q_rows)
        emitted = verdict.emitted_ids
        first[emitted[0]] += 1
        if verdict.accepted >= 1:
            kept_at_root += 1
            second[emitted[0], emitted[1]] += 1
    support = p0 > 0
    assert first[~support].sum() == 0, "emitted a token the target gives probability 0"
    assert chisquare(first[support], DRAWS * p0[support]).pvalue > 1e-3, first
    # Given the root's child x was kept, the next token follows p1[x] (the theorem, one node down).
    for x in range(V):
        n = second[x].sum()
        if n >= 500:
            assert chisquare(second[x], n * p1[x]).pvalue > 1e-3, (x, second[x], n * p1[x])
    if proposal == TOP_K:
        # Some child is kept with probability Σ p over the candidates: the most these candidates allow.
        mass = p0[np.argsort(-q0, kind="stable")[:width]].sum()
        assert abs(kept_at_root / DRAWS - mass) < 4 * np.sqrt(mass * (1 - mass) / DRAWS)


def test_a_wider_tree_keeps_more_than_the_chain() -> None:
    p0, q0, p1, q1 = _dists()
    kept = []
    for width in (1, 2, 3):
        rng = np.random.default_rng(1)
        n = 0
        for _ in range(4000):
            tree, _ = _tree(q0, q1, width, TOP_K, rng)
            n += verify_tree_sampling(tree, _rows(tree, p0, p1)[0], rng).accepted
        kept.append(n)
    assert kept[0] < kept[1] < kept[2]


def test_greedy_walks_the_argmax_through_the_siblings() -> None:
    # root → children 1 ('a'=1), 2 ('b'=2); the target's argmax at the root is 2, then 3 under it.
    tree = DraftTree((0, 1, 2, 4, 3), (-1, 0, 0, 1, 2))
    rows = np.zeros((5, V))
    rows[0, 2] = 5.0  # root: argmax 2 (the second child)
    rows[2, 3] = 5.0  # after 2: argmax 3 (node 4)
    rows[4, 0] = 5.0  # after 3: the bonus 0
    verdict = verify_tree_greedy(tree, rows)
    assert verdict.path == (2, 4)
    assert verdict.emitted_ids == [2, 3, 0]
    assert [d.status for d in verdict.decisions] == [TokenStatus.ACCEPTED, TokenStatus.ACCEPTED, TokenStatus.BONUS]
    lost = {node: d.status for node, d in verdict.lost}
    assert lost == {1: TokenStatus.REJECTED, 3: TokenStatus.DISCARDED}


def test_greedy_tree_of_width_one_is_the_chain() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        logits = rng.normal(size=(4, V)) * 3
        drafts = [int(t) for t in rng.integers(0, V, size=3)]
        chain = verify_greedy(logits, drafts)
        tree = verify_tree_greedy(DraftTree.chain(0, drafts), logits)
        assert tree.emitted_ids == chain.emitted_ids
        assert [(d.status, d.position) for d in tree.decisions] == [(d.status, d.position) for d in chain.decisions]


def test_a_stop_inside_the_tree_shows_the_first_child_rejected_and_the_correction() -> None:
    tree = DraftTree((0, 1, 2), (-1, 0, 0), (None, 0.6, 0.3))
    rows = np.zeros((3, V))
    rows[0, 4] = 5.0
    verdict = verify_tree_greedy(tree, rows)
    assert [(d.token_id, d.status) for d in verdict.decisions] == [(1, TokenStatus.REJECTED),
                                                                   (4, TokenStatus.CORRECTED)]
    assert verdict.decisions[0].q == 0.6
    assert [(n, d.status) for n, d in verdict.lost] == [(2, TokenStatus.REJECTED)]


def test_bad_trees_are_refused() -> None:
    with pytest.raises(ValueError, match="parents must come first"):
        DraftTree((0, 1, 2), (-1, 2, 0))
    with pytest.raises(ValueError, match="one target row per node"):
        verify_tree_greedy(DraftTree((0, 1), (-1, 0)), np.zeros((1, V)))
    with pytest.raises(ValueError, match="needs the draft's q row"):
        verify_tree_sampling(DraftTree((0, 1), (-1, 0), drawn=(False, True)), np.full((2, V), 1 / V),
                             np.random.default_rng(0))


def test_a_drawn_chain_is_leviathans_sampler() -> None:
    """Width 1 with drawn drafts is the chain sampler: same draws, same verdicts."""
    rng_data = np.random.default_rng(9)
    for seed in range(100):
        p = rng_data.dirichlet(np.ones(V), size=3)
        q = rng_data.dirichlet(np.ones(V), size=3)
        drafts = [sample(q[k], rng_data) for k in range(2)]
        chain = verify_sampling(p, q[:2], drafts, np.random.default_rng(seed))
        tree = verify_tree_sampling(DraftTree.chain(0, drafts, drawn=True), p, np.random.default_rng(seed), q)
        assert tree.emitted_ids == chain.emitted_ids
