"""Is a greedy run exact? `specview diff`'s own verdict (features/diff/cause.py), for the tests that
compare greedy runs whose batches differ.

Exact: every token the run emitted is the target's greedy on the run's own verify batches, the
target alone re-run on them (backends/local/replay.py). One-token decoding can still leave an
exact run, since a k-token batch goes through other kernels than a one-token step and the last
bits of a near-tie differ (by how much depends on the CPU and the build). So a divergence from
one-token decoding passes only where `diff` calls it kernel numerics: the replay on the run's
own batches reproduces the run through the divergence. A loop that emits a token the target did
not choose fails both checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from specview.backends.local.engine import Engine
from specview.backends.local.model import ModelRunner
from specview.backends.local.replay import BatchedRun, VerifyBatch
from specview.features.diff.cause import cause_of, greedy_on_batches, logit_margin
from specview.features.diff.model import EXACT, NUMERICS, Cause, Margin


@dataclass(frozen=True, slots=True)
class Batches:
    """A run's verify batches where no backend holds them: an Engine a test drove, a server's run."""

    target: ModelRunner  # the context the run decoded in (its size is the replay's)
    prompt_tokens: list[int]
    verify_batches: Sequence[VerifyBatch]


def batches_of(engine: Engine) -> Batches:
    """The batches of the run `engine` just made."""
    return Batches(engine.target, list(engine.prompt), list(engine.batches))


def first_difference(a: Sequence[int], b: Sequence[int]) -> int | None:
    """Where two token lists first differ (the shorter one's end when one is a prefix), or None."""
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return None if at == len(a) == len(b) else at


def assert_exact(run: BatchedRun, emitted: Sequence[int]) -> None:
    """Every token of `emitted` is the target's greedy on `run`'s own batches."""
    replay = greedy_on_batches(run, run, until=len(emitted))
    at = first_difference(replay.tokens[: len(emitted)], emitted)
    assert at is None, f"token {at} is not the target's greedy on the run's own batches (a defect of the loop)"


def one_token_verdict(one_token: BatchedRun, reference: Sequence[int], run: BatchedRun,
                      emitted: Sequence[int]) -> tuple[Margin | None, Cause]:
    """`diff`'s verdict on `run` (which emitted `emitted`) against the one-token run `one_token`
    (which emitted `reference` and is still open): the logit margin at the first divergence on
    the one-token computation, and exact, numerics or defect."""
    at = first_difference(reference, emitted)
    if at is None:
        return None, Cause(EXACT)
    assert at < min(len(reference), len(emitted)), f"one run stopped at token {at}, the other went on"
    margin = logit_margin(one_token, at, reference[at], emitted[at])
    return margin, cause_of(one_token, run, list(emitted), at, reference[at], emitted[at], margin)


def assert_exact_greedy(one_token: BatchedRun, reference: Sequence[int], run: BatchedRun,
                        emitted: Sequence[int]) -> Cause:
    """Both runs are exact on their own batches, and `run` equals one-token decoding or leaves it
    only by kernel numerics; `diff`'s verdict."""
    assert_exact(one_token, reference)
    assert_exact(run, emitted)
    margin, cause = one_token_verdict(one_token, reference, run, emitted)
    assert cause.kind in (EXACT, NUMERICS), (
        f"leaves one-token decoding at token {first_difference(reference, emitted)} "
        f"(margin {margin}) and the same batches differ too from token {cause.defect_at}: a defect")
    return cause
