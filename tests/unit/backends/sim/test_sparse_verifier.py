"""The simulator's sparse verifier (backends/sim/model.py) gives exactly what kernel/sampling.py's
exact sampler gives on the dense rows, draw for draw and bit for bit, so a seed's rounds did not
change when the simulator stopped doing numpy work per round."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import pytest

from specview.backends.sim.backend import _vocabulary
from specview.backends.sim.model import SimModel, _numpy_sum, _uniforms
from specview.kernel.events import TokenEvent
from specview.kernel.sampling import Decision, verify_greedy, verify_sampling


def _dense(rows: list[dict[int, float]], n: int) -> np.ndarray:
    out = np.zeros((len(rows), n))
    for tok, row in enumerate(rows):
        for x, w in row.items():
            out[tok, x] = w
    return out


def _reference(model: SimModel, rng: np.random.Generator, intended: Sequence[int], gamma: int,
               scale: float) -> tuple[tuple[TokenEvent, ...], tuple[TokenEvent, ...]]:
    """The simulator's round as it was made before: dense numpy rows through kernel/sampling.py."""
    shapes = model.shapes
    p_rows, r_rows = _dense(shapes.p_row, shapes.n_vocab), _dense(shapes.r_row, shapes.n_vocab)
    acceptance = np.array(model.acceptance)
    acceptance = acceptance if scale == 1.0 else acceptance * scale
    intended = list(intended[: gamma + 1])
    p = p_rows[intended]
    drafts: list[int] = []
    if gamma == 0:
        verdict = verify_greedy(p, drafts) if model.temperature <= 0 else verify_sampling(p, None, drafts, rng)
    elif model.temperature <= 0:
        q = 0.2 * p[:-1]
        for k in range(gamma):
            tok = intended[k]
            draft = tok if rng.random() < acceptance[k] else int(shapes.off[tok][0])
            q[k, draft] += 0.8
            drafts.append(draft)
        verdict = verify_greedy(p, drafts, q)
    else:
        beta = acceptance[:gamma, None]
        q = beta * p[:-1] + (1.0 - beta) * r_rows[intended[:-1]]
        for k in range(gamma):
            tok = intended[k]
            if rng.random() < acceptance[k]:
                drafts.append(shapes.draw_support(tok, rng.random()))
            else:
                drafts.append(shapes.draw_off(tok, rng.random()))
        verdict = verify_sampling(p, q, drafts, rng)

    def event(d: Decision) -> TokenEvent:
        return TokenEvent(d.token_id, model.vocab[d.token_id], d.status, d.position, d.p, d.q, False, d.u,
                          d.residual, d.residual_p)

    return tuple(event(d) for d in verdict.decisions), tuple(event(d) for d in verdict.discarded)


@pytest.mark.parametrize(("lang", "acceptance", "temperature", "scale", "seed"), [
    ("en", [0.83, 0.83, 0.83], 1.0, 1.0, 1),
    ("en", [0.8876] * 7, 1.0, 1.0, 2),
    ("en", [0.9222] * 7, 0.0, 1.0, 3),
    ("en", [0.875], 0.7, 1.0, 4),
    ("zh", [0.6, 0.5, 0.4, 0.3], 1.3, 0.8, 5),
    ("zh", [0.3, 0.2], 0.0, 0.7, 6),
    ("en", [0.05, 0.05, 0.05], 2.0, 1.0, 7),  # mostly rejections: the residual path
])
def test_the_sparse_rounds_are_the_dense_samplers_bit_for_bit(lang: str, acceptance: list[float],
                                                              temperature: float, scale: float, seed: int) -> None:
    vocab, passage = _vocabulary(lang)
    fast = SimModel(vocab, passage, acceptance, temperature, seed)
    slow = SimModel(vocab, passage, acceptance, temperature, seed)  # its rng, drawn one by one
    gammas = random.Random(seed)
    position = corrected = 0
    for _ in range(3000):
        gamma = gammas.randint(0, len(acceptance))
        intended = [passage[(position + k) % len(passage)] for k in range(gamma + 1)]
        tokens, discarded, emitted = fast.verify(intended, gamma, scale)
        assert (tokens, discarded) == _reference(slow, slow.rng, intended, gamma, scale)
        assert emitted == sum(1 for t in tokens if t.emitted)
        corrected += any(t.residual is not None for t in tokens)
        position += emitted
    assert temperature <= 0 or corrected > 100  # the residual's sum was compared, not only accepted drafts


def test_a_residual_row_sums_as_numpy_sums_it() -> None:
    """numpy's pairwise summation decides the last bit of a residual's mass (the `residual` field)."""
    draw = random.Random(1)
    for _ in range(2000):
        n = draw.choice([3, 7, 8, 9, 16, 103, 111, 128, 129, 300, 1000])
        values = {draw.randrange(n): draw.random() * 10 ** draw.randint(-6, 3) for _ in range(draw.randint(0, 9))}
        entries = sorted(values.items())
        row = np.zeros(n)
        for i, v in entries:
            row[i] = v
        assert _numpy_sum(entries, n) == float(row.sum())


def test_uniforms_in_blocks_are_the_generators_draws_one_by_one() -> None:
    blocks, single = _uniforms(np.random.default_rng(9)), np.random.default_rng(9)
    assert [next(blocks) for _ in range(3000)] == [single.random() for _ in range(3000)]
