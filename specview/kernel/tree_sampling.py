"""Exact verification of a draft *tree*: several candidates per position, one target forward.

Sampling (T > 0) is SpecInfer's multi-step speculative sampling (Miao et al. 2023, "SpecInfer:
Accelerating Large Language Model Serving with Tree-based Speculative Inference and
Verification", Algorithm 2 and Theorem 4.2): at a node whose target distribution is p, try its
children x₁, x₂, … in order, each proposed from a distribution qᵢ; keep xᵢ with probability
min(1, r(xᵢ)/qᵢ(xᵢ)) where r starts as p, and after each rejection set r ← norm(max(0, r − qᵢ)).
When every child is rejected, draw the next token from r. The theorem: the token emitted at the
node is distributed exactly as p, whatever the qᵢ, provided each candidate xᵢ was drawn from qᵢ
independently of the others given the context. Applied node by node down the accepted path, the
whole output is distributed as the target's.

The lemma behind the theorem is one step: if x ~ qᵢ, keeping x with probability min(1, r(x)/qᵢ(x))
and otherwise drawing from norm(max(0, r − qᵢ)) yields r. It asks only that xᵢ follow qᵢ given
everything before it (the context and the earlier candidates), so each child says how it came:
- drawn (`DraftTree.drawn[i]`): sampled from the draft's q at its parent (SpecInfer's setting;
  a chain's draft is this); qᵢ = q, and the verifier needs q's row at the parent.
- chosen: a function of the context and the earlier siblings (the draft's top-k, as EAGLE-2 and
  Sequoia branch): a point mass, qᵢ = δ(xᵢ). The rule then reads: keep xᵢ with probability r(xᵢ),
  else remove xᵢ from r and renormalise — sampling from p by asking "is it x₁? x₂? …" in turn
  (EAGLE's tree verifier does the same). With only chosen children, the chance that one is kept
  is Σᵢ p(xᵢ), the most any verifier can get from these candidates.

Greedy (T = 0): from the root, move to the child that equals the target's argmax while there is
one; then emit the argmax (corrected, or a bonus after a leaf). Children at one node are distinct
tokens, so the path is unique, and it is the longest path the target agrees with: the output is
plain greedy decoding's, token for token.

A tree is its nodes in breadth-first order: node 0 is the root (the pending token, not a draft),
`parents[i] < i`, and siblings appear in their rank order (the order they are tried).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from specview.kernel.events import TokenStatus
from specview.kernel.sampling import Decision, sample

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class DraftTree:
    """Tokens and parents of a tree, node 0 the root; `q_values[i]` the draft's q of node i's token;
    `drawn[i]` true when node i was sampled from q at its parent (else chosen: see the module)."""

    tokens: tuple[int, ...]
    parents: tuple[int, ...]
    q_values: tuple[float | None, ...] = ()
    drawn: tuple[bool, ...] = ()
    children: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    depths: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.tokens)
        if n < 1 or len(self.parents) != n or self.parents[0] != -1:
            raise ValueError("a tree needs a root (parent -1) and one parent per node")
        kids: list[list[int]] = [[] for _ in range(n)]
        depths = [0] * n
        for i in range(1, n):
            parent = self.parents[i]
            if not 0 <= parent < i:
                raise ValueError(f"node {i} has parent {parent}: parents must come first")
            kids[parent].append(i)
            depths[i] = depths[parent] + 1
        object.__setattr__(self, "children", tuple(tuple(k) for k in kids))
        object.__setattr__(self, "depths", tuple(depths))

    @property
    def size(self) -> int:
        """Drafted nodes (the root is not one)."""
        return len(self.tokens) - 1

    @property
    def depth(self) -> int:
        return max(self.depths)

    def q_of(self, node: int) -> float | None:
        return self.q_values[node] if node < len(self.q_values) else None

    def was_drawn(self, node: int) -> bool:
        return node < len(self.drawn) and self.drawn[node]

    def leaves(self) -> list[int]:
        return [i for i in range(len(self.tokens)) if not self.children[i]]

    @classmethod
    def chain(cls, root: int, drafts: Sequence[int], *, drawn: bool = False) -> DraftTree:
        """A chain is the tree of width 1 (drawn: sampled from q, as a chain drafter does at T > 0)."""
        return cls((root, *drafts), tuple(range(-1, len(drafts))), drawn=(False, *[drawn] * len(drafts)))


@dataclass(frozen=True, slots=True)
class TreeVerification:
    """The accepted path (node ids, root excluded), the round's decisions in the chain's shape
    (accepted…, rejected?, corrected|bonus; positions are depth − 1 as in a chain), and the
    verdict on every other node: REJECTED when the target judged it (its parent is on the path),
    DISCARDED when it hangs below a rejected node and was never judged."""

    path: tuple[int, ...]
    decisions: tuple[Decision, ...]
    lost: tuple[tuple[int, Decision], ...]

    @property
    def accepted(self) -> int:
        return len(self.path)

    @property
    def emitted_ids(self) -> list[int]:
        return [d.token_id for d in self.decisions if d.status is not TokenStatus.REJECTED]


def verify_tree_greedy(tree: DraftTree, rows: npt.NDArray[np.floating]) -> TreeVerification:
    """Greedy verdict; `rows[i]` is the target's row (logits or probabilities) after node i."""
    _check_rows(tree, rows)

    def prob(node: int, token: int) -> float:
        return _softmax_at(rows[node], token)

    node, path = 0, []
    while True:
        target = int(np.argmax(rows[node]))
        nxt = next((c for c in tree.children[node] if tree.tokens[c] == target), None)
        if nxt is None:
            break
        path.append(nxt)
        node = nxt
    decisions = [_judged(tree, prob, c, TokenStatus.ACCEPTED) for c in path]
    kids = tree.children[node]
    position = tree.depths[node]
    shown = kids[0] if kids else None
    if shown is not None:
        decisions.append(_judged(tree, prob, shown, TokenStatus.REJECTED))
    status = TokenStatus.CORRECTED if kids else (TokenStatus.BONUS if position else TokenStatus.PLAIN)
    decisions.append(Decision(target, status, position, prob(node, target), None))
    return TreeVerification(tuple(path), tuple(decisions), _lost(tree, prob, path, shown))


def verify_tree_sampling(
    tree: DraftTree,
    p_rows: npt.ArrayLike,
    rng: np.random.Generator,
    q_rows: Mapping[int, FloatArray] | FloatArray | None = None,
) -> TreeVerification:
    """Multi-step speculative sampling; `p_rows[i]` is the target's probability row after node i,
    `q_rows[i]` the draft's at node i (needed where a child of i was drawn from it: rows by node,
    or a mapping from the nodes that have drawn children)."""
    p = np.atleast_2d(np.asarray(p_rows, dtype=np.float64))
    _check_rows(tree, p)
    q: Mapping[int, FloatArray] = {} if q_rows is None else (
        dict(enumerate(q_rows)) if isinstance(q_rows, np.ndarray) else q_rows)
    for i in range(1, len(tree.tokens)):
        parent = tree.parents[i]
        if tree.was_drawn(i) and (parent not in q or len(q[parent]) != p.shape[1]):
            raise ValueError(f"node {i} was drawn: it needs the draft's q row at its parent, as wide as p")

    def prob(node: int, token: int) -> float:
        return float(p[node, token])

    node = 0
    path: list[int] = []
    decisions: list[Decision] = []
    while True:
        kids = tree.children[node]
        r = p[node].copy()
        kept = None
        for child in kids:
            x = tree.tokens[child]
            drawn = tree.was_drawn(child)
            qx = float(q[node][x]) if drawn else 1.0
            if qx <= 0.0:
                raise ValueError(f"node {child} (token {x}) was drawn with q = 0")
            draw = None if r[x] >= qx else rng.random()  # min(1, r/q) = 1: kept without a draw
            if draw is None or draw < r[x] / qx:
                kept = child
                decisions.append(Decision(x, TokenStatus.ACCEPTED, tree.depths[node], float(p[node, x]),
                                          tree.q_of(child), u=draw))
                break
            if drawn:
                r = np.maximum(r - q[node], 0.0)
            else:
                r[x] = 0.0
            mass = float(r.sum())
            r = r / mass if mass > 0 else p[node].copy()
        if kept is None:
            break
        path.append(kept)
        node = kept
    position = tree.depths[node]
    kids = tree.children[node]
    shown = kids[0] if kids else None
    if shown is not None:
        decisions.append(_judged(tree, prob, shown, TokenStatus.REJECTED))
        fix = sample(r, rng)
        decisions.append(Decision(fix, TokenStatus.CORRECTED, position, float(p[node, fix]), None,
                                  residual_p=float(r[fix])))
    else:
        bonus = sample(p[node], rng)
        status = TokenStatus.BONUS if position else TokenStatus.PLAIN
        decisions.append(Decision(bonus, status, position, float(p[node, bonus]), None))
    return TreeVerification(tuple(path), tuple(decisions), _lost(tree, prob, path, shown))


# parts -------------------------------------------------------------------------------
Prob = Callable[[int, int], float]  # the target's probability of a token at a node


def _judged(tree: DraftTree, prob: Prob, node: int, status: TokenStatus) -> Decision:
    """A node the target judged against its row at the node's parent."""
    parent = tree.parents[node]
    token = tree.tokens[node]
    return Decision(token, status, tree.depths[parent], prob(parent, token), tree.q_of(node))


def _lost(tree: DraftTree, prob: Prob, path: Sequence[int], shown: int | None) -> tuple[tuple[int, Decision], ...]:
    """Every node off the accepted path except the rejected one the decisions show, in node order."""
    on_path = {0, *path}
    out: list[tuple[int, Decision]] = []
    for i in range(1, len(tree.tokens)):
        if i in on_path or i == shown:
            continue
        if tree.parents[i] in on_path:
            out.append((i, _judged(tree, prob, i, TokenStatus.REJECTED)))
        else:
            out.append((i, Decision(tree.tokens[i], TokenStatus.DISCARDED, tree.depths[i] - 1, None, tree.q_of(i))))
    return tuple(out)


def _softmax_at(row: npt.NDArray[np.floating], token: int) -> float:
    """softmax(row)[token] at T = 1, in float64."""
    top = float(row.max())
    return float(np.exp(float(row[token]) - top) / np.exp(row - top).sum(dtype=np.float64))


def _check_rows(tree: DraftTree, rows: npt.NDArray[np.floating]) -> None:
    if rows.ndim != 2 or rows.shape[0] < len(tree.tokens):
        raise ValueError(f"need one target row per node ({len(tree.tokens)}), got shape {rows.shape}")
