"""Where two local greedy runs diverged: the target's logits there, and whether the loop or the kernels did it.

The margin is read on the reference's own computation: its batches (one token each for plain
decoding) replayed on its own context. The cause comes from the reference's model re-run on
the speculative run's batches (backends/local/replay.py), in a context of the speculative
run's size: when that greedy equals the speculative output through the divergence, the loop
is exact and the difference from one-token decoding is kernel numerics; when it differs, the
speculative path is at fault from the first token where it does.
"""

from __future__ import annotations

from specview.backends.local.model import ModelRunner
from specview.backends.local.replay import BatchedRun, Replay, Watched, replay_greedy, sequences
from specview.features.diff.model import DEFECT, NUMERICS, Cause, Margin
from specview.kernel.errors import BackendError


def logit_margin(reference: BatchedRun, index: int, ref_token: int, cand_token: int) -> Margin:
    """The reference's logits for both diverging tokens on the row that decided token `index`."""
    target = reference.target
    if not (0 <= ref_token < target.n_vocab and 0 <= cand_token < target.n_vocab):
        raise BackendError("differr.outside_vocab")
    replay = replay_greedy(target, reference.prompt_tokens, reference.verify_batches, until=index + 1,
                           watch=(index, ref_token, cand_token))
    if replay.watched is None:
        raise BackendError("differr.not_reached")
    return _margin(replay.watched)


def cause_of(reference: BatchedRun, candidate: BatchedRun, emitted: list[int], index: int,
             ref_token: int, cand_token: int, one_token: Margin) -> Cause:
    """numerics or defect, from the reference's model on the candidate's batches (`emitted`: the
    candidate's tokens through the divergence)."""
    replay = greedy_on_batches(reference, candidate, until=index + 1, watch=(index, ref_token, cand_token))
    got = replay.tokens[: index + 1]
    if got != emitted[: index + 1] or replay.watched is None:
        at = next((i for i, (a, b) in enumerate(zip(got, emitted, strict=False)) if a != b), len(got))
        return Cause(DEFECT, defect_at=at)
    width, first = _widest(replay, replay.watched)
    batched = _margin(replay.watched)
    return Cause(NUMERICS, batch_width=width, position=first, logit_shift=one_token.margin - batched.margin,
                 batched=batched)


def greedy_on_batches(reference: BatchedRun, candidate: BatchedRun, *, until: int,
                      watch: tuple[int, int, int] | None = None) -> Replay:
    """The reference's model alone on the candidate's batches (replay.py), in a context of the
    candidate's size, with the cache sequences its tree batches need."""
    own = candidate.target
    runner = ModelRunner(reference.target.path, role="target", n_gpu_layers=reference.target.n_gpu_layers,
                         n_threads=reference.target.n_threads,  # shares the loaded model (pool.py)
                         repack=reference.target.repack.repack)  # the same weights' layout, so the same kernels
    try:
        runner.open_context(own.n_ctx, own.n_batch, sequences(candidate.verify_batches))
        return replay_greedy(runner, candidate.prompt_tokens, candidate.verify_batches, until=until, watch=watch)
    finally:
        runner.close()


def _margin(w: Watched) -> Margin:
    return Margin(w.logits[0], w.logits[1], w.top1_minus_top2)


def _widest(replay: Replay, watched: Watched) -> tuple[int, int]:
    """The batch that decided the diverging token, or when it was one token wide the latest wider
    one before it (its cached keys and values fed the diverging row): (width, first token index)."""
    if watched.batch_width > 1:
        return watched.batch_width, watched.batch_first
    wider = [(w, first) for first, w in replay.widths if w > 1 and first <= watched.batch_first]
    return wider[-1] if wider else (watched.batch_width, watched.batch_first)
