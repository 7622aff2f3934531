"""Acceptance by context position (issue 21, item 1): buckets, their intervals, the decay detector, JSON."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from specview.backends.sim.backend import SimBackend
from specview.catalog.presets import get_preset
from specview.kernel.context_acceptance import FIRST_WIDTH, MAX_BUCKETS, ContextFold, acceptance_json
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.metrics import Metrics
from specview.kernel.session import Session
from specview.kernel.stats import wilson
from specview.kernel.totals import Totals
from specview.report.run_json import stats_dict


def chain_round(index: int, gamma: int, accepted: int) -> Round:
    """A round that drafted γ and kept the first `accepted` (a rejection after them unless all passed)."""
    tokens = [TokenEvent(None, "a", TokenStatus.ACCEPTED) for _ in range(accepted)]
    if accepted < gamma:
        tokens.append(TokenEvent(None, "r", TokenStatus.REJECTED))
        tokens.append(TokenEvent(None, "c", TokenStatus.CORRECTED))
    else:
        tokens.append(TokenEvent(None, "b", TokenStatus.BONUS))
    return Round(index, gamma, tuple(tokens), None, None, float(index))


def synthetic_run(alpha_at: object, rounds: int, gamma: int = 3, seed: int = 1) -> Metrics:
    """Rounds whose per-draft acceptance is `alpha_at(output position)`: a known shape over context."""
    assert callable(alpha_at)
    rng, metrics, position = random.Random(seed), Metrics(), 0
    for i in range(rounds):
        alpha = alpha_at(position)
        accepted = 0
        while accepted < gamma and rng.random() < alpha:
            accepted += 1
        rnd = chain_round(i, gamma, accepted)
        metrics.add(rnd)
        position += rnd.emitted
    return metrics


def sim_run(preset: str, rounds: int, prompt: str | None = None, seed: int = 3) -> tuple[SimBackend, Metrics]:
    backend = SimBackend(get_preset(preset), seed=seed, speed=0, max_rounds=rounds, prompt=prompt)
    session = Session(backend)
    for _ in session.run_headless():
        pass
    return backend, session.metrics


def test_buckets_add_up_to_the_runs_totals() -> None:
    _, metrics = sim_run("glm-5.2-mtp", 3000)
    snap = metrics.snapshot()
    assert snap.context is not None
    buckets = snap.context.buckets
    assert len(buckets) > 4
    assert sum(b.rounds for b in buckets) == snap.rounds
    assert sum(b.drafted for b in buckets) == snap.drafted
    assert sum(b.verified for b in buckets) == snap.verified
    assert sum(b.accepted for b in buckets) == snap.accepted
    # contiguous, equal widths, from the prompt's end
    assert buckets[0].start == 0 and all(a.end == b.start for a, b in pairwise(buckets))


def test_the_detector_fires_on_a_decaying_run_and_not_on_a_flat_one() -> None:
    decaying = synthetic_run(lambda pos: max(0.2, 0.9 - pos / 4000), 4000).snapshot().context
    flat = synthetic_run(lambda pos: 0.8, 4000).snapshot().context
    assert decaying is not None and flat is not None
    fell = decaying.decay()
    assert fell is not None and fell.detected and fell.drop > 0.3
    assert fell.first.alpha is not None and fell.first.alpha > 0.8
    steady = flat.decay()
    assert steady is not None and not steady.detected and abs(steady.drop) < 0.05
    # a flat simulator preset too, over several seeds
    for seed in (1, 2):
        _, metrics = sim_run("qwen3.6-mtp", 3000, seed=seed)
        check = metrics.snapshot().context
        assert check is not None and (d := check.decay()) is not None and not d.detected


def test_the_detector_waits_for_enough_drafts() -> None:
    ctx = synthetic_run(lambda pos: 0.9 if pos < 64 else 0.0, 40).snapshot().context
    assert ctx is not None
    assert ctx.decay() is None  # the second bucket has rejections, but too few verified drafts to judge


def test_buckets_stay_bounded_however_long_the_run() -> None:
    fold = ContextFold()
    for _ in range(200_000):
        fold.add(4, 3, 3, 3)
    ctx = fold.snapshot()
    assert len(ctx.buckets) <= MAX_BUCKETS
    assert ctx.width % FIRST_WIDTH == 0 and (ctx.width // FIRST_WIDTH).bit_count() == 1
    assert sum(b.rounds for b in ctx.buckets) == 200_000
    assert ctx.buckets[-1].end >= 800_000


def test_a_new_request_starts_again_at_its_prompts_end() -> None:
    metrics = Metrics()
    for i in range(40):  # 160 tokens: three buckets
        metrics.add(chain_round(i, 3, 3))
    metrics.close_request(Totals(drafted=120, accepted=120, tokens=160))
    metrics.add(chain_round(40, 3, 0))
    ctx = metrics.snapshot().context
    assert ctx is not None
    assert ctx.buckets[0].rounds == 17  # 16 rounds of the first request (64 tokens), one of the second
    assert ctx.buckets[0].verified == 16 * 3 + 1


def test_json_counts_the_prompt_as_context() -> None:
    backend, metrics = sim_run("qwen3.6-mtp", 300, prompt="Tell me a story about the sea and a lighthouse keeper")
    assert backend.info.prompt_tokens == 11
    stats = stats_dict(backend.info, metrics.snapshot(), "")
    by_context = stats["acceptance_by_context"]
    assert by_context["position"] == "prompt+output" and by_context["prompt_tokens"] == 11
    first = by_context["buckets"][0]
    assert first["from"] == 11 and first["to"] == 11 + by_context["bucket_tokens"]
    assert first["low"] <= first["alpha"] <= first["high"]
    # without the prompt's length the buckets are of output position, and say so
    unknown = acceptance_json(metrics.snapshot().context, None)
    assert unknown is not None and unknown["position"] == "output" and unknown["buckets"][0]["from"] == 0


def test_wilson_interval() -> None:
    assert wilson(0, 0) is None
    low, high = wilson(50, 100)  # type: ignore[misc]
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson(10, 10)[1] == 1.0 and wilson(0, 10)[0] == 0.0  # type: ignore[index]
    assert wilson(10, 10)[0] == pytest.approx(0.7225, abs=1e-3)  # type: ignore[index]
