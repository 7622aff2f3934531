"""Screen 6's sampling check: the vectorised draws follow the core verifier's law, χ² passes for the right
sampler at a fixed seed and fails for the classic mistake (resampling from p after a rejection)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from specview.features.learn.explain.coupling import TARGET_P, draft_between, sample_check
from specview.kernel.sampling import draw_emitted, verify_sampling
from specview.kernel.stats import chi_square, chi_square_sf


@pytest.mark.parametrize(("statistic", "dof"), [(0.0, 1), (0.5, 1), (3.84, 1), (7.0, 7), (14.07, 7), (30.0, 7),
                                                (100.0, 20), (1.0, 3), (250.0, 9)])
def test_chi_square_p_value_matches_scipy(statistic: float, dof: int) -> None:
    assert chi_square_sf(statistic, dof) == pytest.approx(stats.chi2.sf(statistic, dof), rel=1e-9, abs=1e-300)


def test_chi_square_statistic_matches_scipy() -> None:
    counts = [340, 230, 130, 100, 90, 60, 30, 20]
    ours = chi_square(counts, TARGET_P)
    expected = [sum(counts) * p for p in TARGET_P]
    ref = stats.chisquare(counts, expected)
    assert ours.statistic == pytest.approx(ref.statistic) and ours.p_value == pytest.approx(ref.pvalue)
    assert ours.dof == len(counts) - 1


def test_a_count_where_p_is_zero_fails_outright() -> None:
    assert chi_square([5, 1], [1.0, 0.0]).p_value == 0.0


@pytest.mark.parametrize("closeness", [0.0, 0.4, 0.9])
def test_right_sampler_passes_and_wrong_sampler_fails_at_a_fixed_seed(closeness: float) -> None:
    q = draft_between(closeness)
    right = sample_check(TARGET_P, q, 100_000, seed=11)
    wrong = sample_check(TARGET_P, q, 100_000, seed=11, wrong=True)
    assert right["passes"], right["p_value"]
    assert not wrong["passes"], wrong["p_value"]


def test_vectorised_draws_follow_the_same_law_as_verify_sampling() -> None:
    q = np.array(draft_between(0.2))
    p = np.array(TARGET_P)
    rng = np.random.default_rng(5)
    n = 20_000
    looped = [verify_sampling(np.vstack([p, p]), q[None, :], [int(rng.choice(len(q), p=q))], rng).emitted_ids[0]
              for _ in range(n)]
    vectorised = draw_emitted(p, q, n, np.random.default_rng(6))
    a = np.bincount(looped, minlength=len(p))
    b = np.bincount(vectorised, minlength=len(p))
    # the two samples come from one law (χ² test of homogeneity), and each is p
    assert stats.chi2_contingency(np.vstack([a, b]))[1] > 0.001
    assert chi_square(a.tolist(), TARGET_P).passes() and chi_square(b.tolist(), TARGET_P).passes()


def test_draws_keep_the_draft_with_probability_alpha() -> None:
    p, q = np.array(TARGET_P), np.array(draft_between(0.5))
    alpha = np.minimum(p, q).sum()
    rng = np.random.default_rng(3)
    n = 200_000
    drafts = rng.choice(len(q), size=n, p=q)
    kept = rng.random(n) * q[drafts] < p[drafts]
    assert kept.mean() == pytest.approx(alpha, abs=0.005)
    with pytest.raises(ValueError):
        draw_emitted([0.5, 0.5], [1.0], 3, rng)
