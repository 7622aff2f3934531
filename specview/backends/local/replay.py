"""The target's greedy on given verify batches: a run's batch shapes replayed through the target alone.

A speculative run evaluates `[pending, d1 … dk−1]` at cache position n each round; plain decoding
evaluates one token at a time. The same model can pick different tokens on the two because
a k-token batch goes through other kernels than a 1-token step (and the cache it leaves holds
keys and values computed that way). Replaying a run's batches (same contents, same positions,
the prompt prefilled the same way, a context of the same size) and taking each row's argmax
gives the target's own greedy on those batches, decided here independently of the drafter
and the verifier: a speculative run that equals it is exact, whatever one-token decoding says.

A tree round's batch is its whole draft tree (tree_verify.py): replayed the same way, with the
target's argmax walked down the tree from the root. The first batch may also carry the prompt's
tail, where a run prefilled less of the prompt (llama-server evaluates all of it in one batch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from specview.backends.local.model import ModelRunner
from specview.backends.local.tree_verify import eval_tree, keep_path
from specview.kernel.tree_sampling import DraftTree


@dataclass(frozen=True, slots=True)
class VerifyBatch:
    """One round's target forward: `tokens` appended after `position` cached tokens, as a chain, or
    as a draft tree when `parents` gives each node's parent (kernel/tree_sampling.DraftTree)."""

    position: int
    tokens: tuple[int, ...]  # the pending token, then the drafts (a tree's nodes, root first)
    parents: tuple[int, ...] = ()  # a tree's: node 0's is -1; empty for a chain


@runtime_checkable
class BatchedRun(Protocol):
    """A local run whose verify batches can be replayed (LlamaBackend)."""

    @property
    def target(self) -> ModelRunner: ...

    @property
    def prompt_tokens(self) -> list[int]: ...

    @property
    def verify_batches(self) -> Sequence[VerifyBatch]: ...


@dataclass(frozen=True, slots=True)
class Watched:
    """The logits row that decided the token at the watched index, read for two tokens."""

    logits: tuple[float, float]
    top1_minus_top2: float
    batch_width: int
    batch_first: int  # index of the first token that batch decided


@dataclass(frozen=True, slots=True)
class Replay:
    """The target's greedy on the batches, as far as they followed it."""

    tokens: list[int]
    widths: tuple[tuple[int, int], ...]  # (first token index, width) of each batch replayed
    watched: Watched | None
    followed: bool  # False: a batch did not continue the target's own choices (pending or position)


def sequences(batches: Sequence[VerifyBatch]) -> int:
    """The cache sequences a replay of `batches` needs: one per leaf of the leafiest tree (tree_verify.py)."""
    return max((_leaves(b.parents) for b in batches if b.parents), default=1)


def replay_greedy(runner: ModelRunner, prompt: Sequence[int], batches: Sequence[VerifyBatch], *,
                  until: int, watch: tuple[int, int, int] | None = None) -> Replay:
    """Greedy tokens 0 … `until`−1 on `batches` (cache emptied first); `watch` = (index, a, b)
    reads the logits of tokens a and b on the row that decided token `index`."""
    n_vocab = runner.n_vocab
    runner.reset()
    prefilled = max(len(prompt) - 1, 0)  # as Engine.start: the last prompt token leads the first batch
    if batches and 0 <= batches[0].position < prefilled:
        prefilled = batches[0].position  # a first batch that carries the prompt's tail
    if prefilled:
        runner.prefill(prompt[:prefilled])
    out: list[int] = []
    widths: list[tuple[int, int]] = []
    watched = None
    lead = tuple(prompt[prefilled:])  # what a batch starts with: the tokens decided, none of them drafts
    for batch in batches:
        if len(out) >= until:
            break
        tokens = batch.tokens
        try:
            tree = _tree(batch, runner, lead)
        except ValueError:
            return Replay(out, tuple(widths), watched, followed=False)
        if not lead or tokens[: len(lead)] != lead or batch.position != runner.n_past \
                or any(not 0 <= t < n_vocab for t in tokens):
            return Replay(out, tuple(widths), watched, followed=False)
        widths.append((len(out), len(tokens)))
        nodes = tokens[len(lead) - 1 :]  # the last decided token, then the drafts
        if tree is None:  # a chain: each node's child is the next one
            rows = runner.eval(tokens, rows=len(nodes))
            children: Sequence[tuple[int, ...]] = [(i + 1,) for i in range(len(nodes) - 1)] + [()]
        else:
            rows, first_seq = eval_tree(runner, tree)
            children = tree.children
        node, path = 0, []
        while True:
            row = rows[node][:n_vocab]
            choice = int(np.argmax(row))
            if watch is not None and len(out) == watch[0]:
                top = np.partition(row, -2)[-2:]
                watched = Watched((float(row[watch[1]]), float(row[watch[2]])), float(abs(top[1] - top[0])),
                                  len(tokens), widths[-1][0])
            out.append(choice)
            agreed = next((c for c in children[node] if nodes[c] == choice), None)
            if agreed is None:
                break
            path.append(agreed)
            node = agreed
        if tree is None:
            runner.truncate(batch.position + len(lead) + len(path))  # the drafts this batch agreed with stay cached
        else:
            keep_path(runner, tree, tuple(path), first_seq)
        lead = (out[-1],)
    return Replay(out, tuple(widths), watched, followed=True)


def _tree(batch: VerifyBatch, runner: ModelRunner, lead: tuple[int, ...]) -> DraftTree | None:
    """The batch's draft tree, None for a chain; ValueError for parents that make no tree, a tree
    after the prompt's tail, or one with more leaves than the runner's cache has sequences (where
    llama.cpp would abort on the copy)."""
    if not batch.parents:
        return None
    if len(lead) != 1 or _leaves(batch.parents) > runner.lib.llama_n_seq_max(runner.ctx):
        raise ValueError("not a tree this replay can evaluate")
    return DraftTree(batch.tokens, batch.parents)


def _leaves(parents: Sequence[int]) -> int:
    """How many nodes are no node's parent."""
    return len(parents) - len(set(parents) - {-1})
