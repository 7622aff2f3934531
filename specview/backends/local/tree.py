"""Tree drafts in the local loop: the draft model's chain plus its next-best tokens at each depth.

At each depth the draft model's q gives the chain's token (its argmax, or a draw from q at T > 0)
and W − 1 more candidates beside it (q's next most probable tokens); only the chain's token is
extended, so drafting costs what the chain's does (one draft step per depth) and the tree holds
the chain: greedy, the tree never accepts less than the chain would, and a sibling that the
target agrees with is kept where the chain would have stopped (then the round's bonus comes
from the target's row at that sibling). The whole tree is verified in one target batch
(tree_verify.py) by kernel/tree_sampling.py's exact verifier.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from specview.backends.local.drafters import EMPTY, AdaptiveGamma, ModelDrafter
from specview.backends.local.engine import RECALIBRATE_ROUNDS, Engine
from specview.backends.local.model import Logits, ModelRunner
from specview.backends.local.replay import VerifyBatch
from specview.backends.local.top import top_tokens
from specview.backends.local.tree_verify import eval_tree, keep_path
from specview.backends.local.verify import row_probabilities
from specview.backends.reason import reason_of
from specview.kernel.errors import BackendError
from specview.kernel.events import Q_TOP, Round, TokenEvent, TokenStatus
from specview.kernel.lost_from import BELOW_REJECTED, ON_PATH
from specview.kernel.sampling import FloatArray, probabilities, sample
from specview.kernel.tree_sampling import DraftTree, TreeVerification, verify_tree_greedy, verify_tree_sampling
from specview.kernel.tree_shape import TreeShape, parse_tree
from specview.kernel.what_if import with_q_ranks


def tree_of(text: str | None) -> TreeShape | None:
    """The RunSpec's `--tree` (None: a chain), as a shape; a bad one is a BackendError."""
    if text is None:
        return None
    try:
        return parse_tree(text)
    except ValueError as exc:
        raise BackendError("backenderr.as_is", error=reason_of(exc)) from None


def check_tree(tree: TreeShape | None, draft: str, *, plain: bool, adaptive: bool) -> None:
    """What a tree needs: a draft model's q to branch on, speculation on, and a fixed shape."""
    if tree is None:
        return
    if plain:
        raise BackendError("backenderr.tree.no_spec", tree=str(tree))
    if draft == "ngram":
        raise BackendError("backenderr.tree.ngram", tree=str(tree))
    if adaptive:
        raise BackendError("backenderr.tree.adaptive", tree=str(tree))


@dataclass(frozen=True, slots=True)
class TreeDraft:
    tree: DraftTree
    q_rows: dict[int, FloatArray]  # the draft's q at each node with a drawn child (T > 0)
    q_top: tuple[tuple[int, ...], ...]  # q's top tokens at each depth, most probable first


class TreeDrafter(ModelDrafter):
    """A GGUF draft model that returns a tree of `width` candidates per depth."""

    def draft_tree(
        self,
        history: Sequence[int],
        shape: TreeShape,
        depth: int,
        temperature: float,
        rng: np.random.Generator,
        is_eog: Callable[[int], bool],
        stop: threading.Event | None = None,
    ) -> TreeDraft:
        root = (history[-1],)
        new = list(history[len(self.cached):])
        logits = self.runner.prefill(new, stop) if depth > 0 else None
        if logits is None:  # nothing to draft, or stopped between prefill chunks
            self.runner.truncate(len(self.cached))
            return TreeDraft(DraftTree(root, (-1,)), {}, ())
        self.cached.extend(new)
        tokens, parents, drawn = [history[-1]], [-1], [False]
        q_values: list[float | None] = [None]
        q_rows: dict[int, FloatArray] = {}
        tops: list[tuple[int, ...]] = []
        parent = 0
        row = self._row(logits)
        for k in range(depth):
            if temperature > 0:
                q = probabilities(row, temperature)
                ranked = top_tokens(q, max(shape.width, Q_TOP))
                first = sample(q, rng)
                q_rows[parent] = q
            else:
                ranked = top_tokens(row, max(shape.width, Q_TOP))
                first = ranked[0]
            cands = [first, *(t for t in ranked if t != first)][: shape.width]
            probs = [float(q[t]) for t in cands] if temperature > 0 else row_probabilities(row, cands)
            spine = len(tokens)
            for j, (tok, qx) in enumerate(zip(cands, probs, strict=True)):
                tokens.append(tok)
                parents.append(parent)
                q_values.append(qx)
                drawn.append(j == 0 and temperature > 0)
            tops.append(tuple(ranked[:Q_TOP]))
            if k == depth - 1 or is_eog(first):  # never draft past an end of generation (as llama.cpp)
                break
            row = self._row(self.runner.eval([first]))
            self.cached.append(first)
            parent = spine
        tree = DraftTree(tuple(tokens), tuple(parents), tuple(q_values), tuple(drawn))
        return TreeDraft(tree, q_rows, tuple(tops))


class TreeEngine(Engine):
    """The chain engine's loop with one tree per round (same commit, rollback and clock)."""

    def __init__(
        self,
        target: ModelRunner,
        drafter: TreeDrafter,
        prompt: Sequence[int],
        *,
        shape: TreeShape,
        temperature: float,
        max_tokens: int,
        seed: int,
        calibrate_every: int | None = RECALIBRATE_ROUNDS,
    ) -> None:
        fixed = AdaptiveGamma(shape.depth, shape.depth, shape.depth)  # the depth, as γ is for a chain
        super().__init__(target, drafter, prompt, gamma=fixed, temperature=temperature, max_tokens=max_tokens,
                         seed=seed, calibrate_every=calibrate_every)
        self.shape = shape
        self.tree_drafter = drafter

    @property
    def max_verify(self) -> int:
        """The tree's batch: every node and the root (what the calibration times)."""
        return self.shape.verify_drafts + 1

    def step(self, stop: threading.Event | None = None) -> Round:
        run, target = self._run, self.target
        decode_before = self._decode_s()
        t0 = time.perf_counter()
        room = target.n_ctx - target.n_past - 2
        depth = min(self.shape.depth, self.max_tokens - run.generated - 1, room)
        draft = self.tree_drafter.draft_tree(run.committed, self.shape, depth, self.temperature, self._rng,
                                             target.is_eog, stop)
        tree = draft.tree
        t1 = time.perf_counter()
        self.batches.append(VerifyBatch(target.n_past, tree.tokens, tree.parents))
        rows, first_seq = eval_tree(target, tree)
        t2 = time.perf_counter()
        verdict = self._verdict(tree, rows, draft.q_rows)
        keep_path(target, tree, verdict.path, first_seq)
        decisions, drafted = self._cut(list(verdict.decisions), tree.depth)
        emitted = [d.token_id for d in decisions if d.status is not TokenStatus.REJECTED]
        run.committed.extend(emitted)
        run.generated += len(emitted)
        target.truncate(len(run.committed) - 1)
        self.tree_drafter.sync(run.committed)
        lost = self._lost(verdict)  # before the stream moves on: their text continues the text so far
        lost_from = _lost_from(tree, verdict)
        events, _ = self._events(decisions, EMPTY, final=self.finished)
        index = self._tally(t0, decode_before)
        return Round(
            index=index,
            drafted=drafted,
            tokens=with_q_ranks(events, draft.q_top),
            t_draft_s=t1 - t0,
            t_verify_s=t2 - t1,
            t_wall=time.monotonic() - self._excluded_s,
            lost=lost,
            q_top=draft.q_top[: tree.depth],
            lost_from=lost_from,
        )

    def _verdict(self, tree: DraftTree, rows: Logits, q_rows: dict[int, FloatArray]) -> TreeVerification:
        if self.temperature > 0:
            return verify_tree_sampling(tree, probabilities(rows, self.temperature), self._rng, q_rows)
        return verify_tree_greedy(tree, rows)

    def _lost(self, verdict: TreeVerification) -> tuple[TokenEvent, ...]:
        """The branches that lost, as tokens: judged and rejected, or below one and never judged."""
        stream = self._run.stream
        return tuple(
            TokenEvent(d.token_id, stream.peek(self.target.piece(d.token_id)), d.status, d.position, d.p, d.q)
            for _, d in verdict.lost
        )


def _lost_from(tree: DraftTree, verdict: TreeVerification) -> tuple[int, ...]:
    """What each lost node hangs from (Round.lost_from): the accepted path, the rejected node the
    round shows (the first child of the path's last node, as the verifiers choose it), or an
    earlier lost node."""
    on_path = {0, *verdict.path}
    last = verdict.path[-1] if verdict.path else 0
    shown = tree.children[last][0] if tree.children[last] else None
    index = {node: i for i, (node, _) in enumerate(verdict.lost)}
    out = []
    for node, _ in verdict.lost:
        parent = tree.parents[node]
        out.append(ON_PATH if parent in on_path else BELOW_REJECTED if parent == shown else index[parent])
    return tuple(out)
