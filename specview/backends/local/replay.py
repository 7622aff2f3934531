"""The target's greedy on given verify batches: a run's batch shapes replayed through the target alone.

A speculative run evaluates `[pending, d1 … dk−1]` at cache position n each round; plain decoding
evaluates one token at a time. The same model can pick different tokens on the two because
a k-token batch goes through other kernels than a 1-token step (and the cache it leaves holds
keys and values computed that way). Replaying a run's batches (same contents, same positions,
the prompt prefilled the same way, a context of the same size) and taking each row's argmax
gives the target's own greedy on those batches, decided here independently of the drafter
and the verifier: a speculative run that equals it is exact, whatever one-token decoding says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from specview.backends.local.model import ModelRunner


@dataclass(frozen=True, slots=True)
class VerifyBatch:
    """One round's target forward: `tokens` appended after `position` cached tokens."""

    position: int
    tokens: tuple[int, ...]  # the pending token, then the drafts


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


def replay_greedy(runner: ModelRunner, prompt: Sequence[int], batches: Sequence[VerifyBatch], *,
                  until: int, watch: tuple[int, int, int] | None = None) -> Replay:
    """Greedy tokens 0 … `until`−1 on `batches` (cache emptied first); `watch` = (index, a, b)
    reads the logits of tokens a and b on the row that decided token `index`."""
    n_vocab = runner.n_vocab
    runner.reset()
    if len(prompt) > 1:
        runner.prefill(prompt[:-1])  # as Engine.start: the last prompt token leads the first batch
    out: list[int] = []
    widths: list[tuple[int, int]] = []
    watched = None
    pending = prompt[-1]
    for batch in batches:
        if len(out) >= until:
            break
        tokens = batch.tokens
        if not tokens or tokens[0] != pending or batch.position != runner.n_past \
                or any(not 0 <= t < n_vocab for t in tokens):
            return Replay(out, tuple(widths), watched, followed=False)
        widths.append((len(out), len(tokens)))
        rows = runner.eval(tokens, rows=len(tokens))
        for j in range(len(tokens)):
            row = rows[j][:n_vocab]
            choice = int(np.argmax(row))
            if watch is not None and len(out) == watch[0]:
                top = np.partition(row, -2)[-2:]
                watched = Watched((float(row[watch[1]]), float(row[watch[2]])), float(abs(top[1] - top[0])),
                                  len(tokens), widths[-1][0])
            out.append(choice)
            if j + 1 == len(tokens) or tokens[j + 1] != choice:
                break
        runner.truncate(batch.position + j + 1)  # the drafts this batch agreed with stay cached
        pending = out[-1]
    return Replay(out, tuple(widths), watched, followed=True)
