"""What a target forward costs here: k-token forwards at the live context, and one plain step.

On a GPU at batch 1 a forward of k tokens costs about as much as one (the weights are read
once either way); on a CPU the forward is compute-bound and the cost grows with k. The
speedup speculation can reach depends on that curve, so specview measures it instead of
assuming it: each cost is timed inside llama_decode (plus a synchronize, so an asynchronous
GPU backend is timed to the end), at the cache's current length, and the cache is rolled back
afterwards so the run continues exactly as if nothing had happened.

Every call must come from the thread that owns the runner (the engine thread).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence

from specview.backends.local.model import Logits, ModelRunner

DEFAULT_REPEATS = 3


def measure_verify_costs(
    runner: ModelRunner, ks: Sequence[int], *, repeats: int = DEFAULT_REPEATS, token: int = 0
) -> list[float]:
    """Seconds per k-token target forward (all k logits rows, as a verification asks), one per k in `ks`:
    the median of each k's `repeats` timings (`time_verify_costs`)."""
    return [statistics.median(samples) for samples in time_verify_costs(runner, ks, repeats=repeats, token=token)]


def time_verify_costs(
    runner: ModelRunner, ks: Sequence[int], *, repeats: int = DEFAULT_REPEATS, token: int = 0
) -> list[list[float]]:
    """Every timing of a k-token target forward, `repeats` per k in `ks` (their spread is the
    calibration's spread: kernel/spread.py).

    Measured at the live context: the k tokens are appended after the `runner.n_past` tokens
    already cached and removed again, so the cache is left as found. The ks are visited
    round-robin, so a change in machine load during the measurement touches every k alike.
    One untimed forward of the largest k comes first (llama.cpp sizes its buffers for a new
    batch shape on first use). `token` is the id fed (a dense model's cost does not depend on it).
    """
    if not ks or min(ks) < 1:
        raise ValueError(f"ks must be positive token counts, got {list(ks)}")
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    largest = max(ks)
    if largest > runner.n_batch or runner.n_past + largest > runner.n_ctx:
        raise ValueError(
            f"a {largest}-token forward does not fit: {runner.n_past} of {runner.n_ctx} cached, batch {runner.n_batch}"
        )
    keep = runner.n_past
    _forward(runner, [token] * largest, keep)
    times: dict[int, list[float]] = {k: [] for k in ks}
    for _ in range(repeats):
        for k in ks:
            times[k].append(_forward(runner, [token] * k, keep))
    return [times[k] for k in ks]


def time_plain_steps(
    runner: ModelRunner,
    token: int,
    decide: Callable[[Logits], int],
    *,
    repeats: int = DEFAULT_REPEATS,
) -> list[float]:
    """Seconds for each of `repeats` plain decoding steps through the same loop: a 1-token
    forward, the verdict on its row (`decide`, e.g. greedy argmax or a sample) and the token's text.

    This is the baseline a speculative run is measured against: plain decoding done by the
    same code, so the loop's own per-token work counts on both sides. The calibration keeps
    their median and, for its spread, every timing; the cache is left as found.
    """
    keep = runner.n_past
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        rows = runner.eval([token], rows=1)
        chosen = decide(rows)
        runner.piece(chosen)
        timings.append(time.perf_counter() - start)
        runner.truncate(keep)
    return timings


def _forward(runner: ModelRunner, tokens: list[int], keep: int) -> float:
    """One timed forward of `tokens` with logits for every row; the cache is cut back to `keep`."""
    before = runner.decode_s
    runner.eval(tokens, rows=len(tokens))
    start = time.perf_counter()
    runner.lib.llama_synchronize(runner.ctx)
    synced = time.perf_counter() - start
    runner.truncate(keep)
    return runner.decode_s - before + synced
