"""The exact sampler: emitted tokens follow p for any q; greedy follows argmax."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from specview.kernel.events import TokenStatus
from specview.kernel.sampling import probabilities, sample, verify_greedy, verify_sampling

DRAWS = 20_000


def _pairs() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(11)
    v = 8
    random_p, random_q = rng.dirichlet(np.ones(v)), rng.dirichlet(np.ones(v))
    peaky_p = rng.dirichlet(np.full(v, 0.3))
    disjoint_p = np.array([0.5, 0.3, 0.2, 0, 0, 0, 0, 0.0])
    disjoint_q = np.array([0, 0, 0, 0.25, 0.25, 0.25, 0.25, 0.0])
    same = rng.dirichlet(np.ones(v))
    partial_p = np.array([0.1, 0.4, 0.1, 0.4, 0, 0, 0, 0.0])
    partial_q = np.array([0.0, 0.1, 0.1, 0.1, 0.5, 0.2, 0, 0.0])
    return [
        ("random", random_p, random_q),
        ("peaky-vs-random", peaky_p, random_q),
        ("disjoint", disjoint_p, disjoint_q),
        ("identical", same, same.copy()),
        ("partial-overlap", partial_p, partial_q),
    ]


@pytest.mark.parametrize(("name", "p", "q"), _pairs(), ids=[n for n, _, _ in _pairs()])
def test_first_token_is_distributed_as_p(name: str, p: np.ndarray, q: np.ndarray) -> None:
    rng = np.random.default_rng(2024)
    p_rows = np.stack([p, p])
    counts = np.zeros(len(p))
    accepted = 0
    for _ in range(DRAWS):
        draft = sample(q, rng)
        verdict = verify_sampling(p_rows, q[None, :], [draft], rng)
        first = verdict.emitted_ids[0]
        counts[first] += 1
        accepted += verdict.accepted
    support = p > 0
    assert counts[~support].sum() == 0, "emitted a token the target gives probability 0"
    result = chisquare(counts[support], DRAWS * p[support])
    assert result.pvalue > 1e-3, (name, counts, DRAWS * p)
    # Acceptance probability is the overlap Σ min(p, q) (Leviathan Thm 3.5).
    overlap = np.minimum(p, q).sum()
    assert abs(accepted / DRAWS - overlap) < 4 * np.sqrt(overlap * (1 - overlap) / DRAWS) + 1e-9


def test_bonus_follows_next_row_and_later_positions_stay_exact() -> None:
    rng = np.random.default_rng(5)
    p0, p1, p2 = (rng.dirichlet(np.ones(6)) for _ in range(3))
    q0, q1 = (rng.dirichlet(np.ones(6)) for _ in range(2))
    second = np.zeros(6)
    n_second = 0
    for _ in range(DRAWS):
        drafts = [sample(q0, rng), sample(q1, rng)]
        verdict = verify_sampling(np.stack([p0, p1, p2]), np.stack([q0, q1]), drafts, rng)
        emitted = verdict.emitted_ids
        if verdict.accepted >= 1:
            second[emitted[1]] += 1
            n_second += 1
    # Given the first draft was accepted, the second emitted token is distributed as p1.
    assert chisquare(second, n_second * p1).pvalue > 1e-3


def test_statuses_and_positions_of_a_round() -> None:
    p = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    q = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    verdict = verify_sampling(p, q, [1, 0], np.random.default_rng(0))
    statuses = [d.status for d in verdict.decisions]
    assert statuses == [TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED]
    assert verdict.decisions[2].token_id == 2 and verdict.decisions[2].position == 1
    assert verdict.emitted_ids == [1, 2]


def test_greedy_picks_the_target_argmax() -> None:
    logits = np.array([[0.1, 3.0, 0.2, 0.0], [2.0, 0.1, 0.0, 0.0], [0.0, 0.0, 0.0, 5.0]])
    all_pass = verify_greedy(logits, [1, 0])
    assert all_pass.accepted == 2
    assert [d.status for d in all_pass.decisions][-1] is TokenStatus.BONUS
    assert all_pass.emitted_ids == [1, 0, 3]
    miss = verify_greedy(logits, [1, 2])
    assert miss.accepted == 1
    assert miss.emitted_ids == [1, 0]
    assert miss.decisions[1].status is TokenStatus.REJECTED and miss.decisions[1].token_id == 2
    assert miss.decisions[2].status is TokenStatus.CORRECTED and miss.decisions[2].token_id == 0


def test_probabilities_temperature_top_k_top_p() -> None:
    logits = np.array([1.0, 2.0, 3.0, 0.0])
    p = probabilities(logits, 1.0)
    assert np.isclose(p.sum(), 1.0) and np.argmax(p) == 2
    assert np.array_equal(probabilities(logits, 0.0), np.array([0, 0, 1.0, 0]))
    sharp = probabilities(logits, 0.5)
    assert sharp[2] > p[2]
    top2 = probabilities(logits, 1.0, top_k=2)
    assert top2[0] == 0 and top2[3] == 0 and np.isclose(top2.sum(), 1.0)
    nucleus = probabilities(logits, 1.0, top_p=0.5)
    assert nucleus[2] == 1.0


def test_sampling_rejects_a_draft_with_zero_draft_probability() -> None:
    with pytest.raises(ValueError, match="q = 0"):
        verify_sampling(np.ones((2, 3)) / 3, np.array([[1.0, 0, 0]]), [2], np.random.default_rng(0))


def test_a_round_without_drafts_emits_one_plain_token() -> None:
    logits = np.array([[0.1, 2.0, 0.3]])
    greedy = verify_greedy(logits, [])
    assert [(d.token_id, d.status) for d in greedy.decisions] == [(1, TokenStatus.PLAIN)]
    p = probabilities(logits, 1.0)
    sampled = verify_sampling(p, None, [], np.random.default_rng(0))
    assert len(sampled.decisions) == 1 and sampled.decisions[0].status is TokenStatus.PLAIN
    with pytest.raises(ValueError, match="needs the draft's q rows"):
        verify_sampling(np.ones((2, 3)) / 3, None, [1], np.random.default_rng(0))
