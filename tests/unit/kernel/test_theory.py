"""Theory against hand-computed values (Leviathan Eq. 1, Thm 3.8, §3.5)."""

from __future__ import annotations

from functools import partial

import pytest

from specview.kernel.theory import (
    alpha_for_tau,
    best_gamma,
    best_over,
    expected_tau,
    speedup,
    tau_from_positions,
    verify_ratio,
)


def test_expected_tau_hand_values() -> None:
    assert expected_tau(0.8, 3) == pytest.approx((1 - 0.8**4) / 0.2)  # 2.952
    assert expected_tau(0.8, 3) == pytest.approx(2.952)
    assert expected_tau(0.0, 5) == 1.0
    assert expected_tau(1.0, 4) == 5.0
    assert expected_tau(0.5, 1) == pytest.approx(1.5)


def test_speedup_hand_values() -> None:
    assert speedup(0.8, 3, 0.05) == pytest.approx(2.952 / 1.15)
    assert speedup(0.875, 1, 0.04) == pytest.approx(1.875 / 1.04)


@pytest.mark.parametrize(
    ("alpha", "c", "gamma", "gain"),
    [(0.6, 0.05, 4, 1.92), (0.7, 0.05, 6, 2.35), (0.8, 0.05, 8, 3.09), (0.9, 0.05, 13, 4.67), (0.8, 0.13, 5, 2.24)],
)
def test_best_gamma_matches_the_worked_examples(alpha: float, c: float, gamma: int, gain: float) -> None:
    best, value = best_gamma(alpha, c)
    assert best == gamma
    assert value == pytest.approx(gain, abs=0.006)


def test_alpha_for_tau_inverts_eq1() -> None:
    alpha = alpha_for_tau(5.47, 7)
    assert expected_tau(alpha, 7) == pytest.approx(5.47, abs=1e-9)
    assert 0.88 < alpha < 0.89


def test_tau_from_positions() -> None:
    assert tau_from_positions([0.5, 0.5]) == pytest.approx(1.75)
    assert tau_from_positions([0.8] * 3) == pytest.approx(expected_tau(0.8, 3))


def test_bad_values_raise() -> None:
    with pytest.raises(ValueError):
        expected_tau(1.5, 2)
    with pytest.raises(ValueError):
        speedup(0.5, 2, -1)
    with pytest.raises(ValueError):
        alpha_for_tau(9.0, 3)


def test_speedup_with_a_verify_ratio_is_the_general_form() -> None:
    # τ / (γc + v): v = 1 is Theorem 3.8; a CPU's v > 1 lowers it
    assert speedup(0.8, 3, 0.05, verify_ratio=1.0) == speedup(0.8, 3, 0.05)
    assert speedup(0.8, 3, 0.05, verify_ratio=2.4) == pytest.approx(2.952 / (0.15 + 2.4))
    with pytest.raises(ValueError):
        speedup(0.8, 3, 0.05, verify_ratio=0.0)


def test_best_gamma_follows_the_measured_verify_curve() -> None:
    flat = best_gamma(0.8, 0.05)
    # cost(k) = k × cost(1): verifying is as dear as decoding, so no γ pays at all
    linear = partial(verify_ratio, [0.01 * k for k in range(1, 34)])
    assert best_gamma(0.8, 0.05, verify_ratio=linear) == (0, 1.0)
    # a curve that stays flat to k = 4 and then doubles: the best γ stops at 3
    bent = partial(verify_ratio, [0.01] * 4 + [0.02] * 29)
    gamma, gain = best_gamma(0.8, 0.05, verify_ratio=bent)
    assert gamma == 3 and gain == pytest.approx(speedup(0.8, 3, 0.05))
    assert flat[0] == 8
    # past the measured curve v is unknown, and the search stops there
    assert verify_ratio([0.01, 0.02], 2) is None and verify_ratio([0.01, 0.02], -1) is None
    assert best_gamma(0.99, 0.0, verify_ratio=partial(verify_ratio, [0.01, 0.01]))[0] == 1


def test_best_over_is_the_one_search_whatever_gives_the_speedup() -> None:
    # Eq. 1 at one α through best_over is best_gamma itself
    assert best_over(lambda g: speedup(0.8, g, 0.05)) == best_gamma(0.8, 0.05)
    # ties go to the smaller γ, nothing above 1× is plain decoding, and a None ends the search
    assert best_over(lambda g: 2.0, 8) == (1, 2.0)
    assert best_over(lambda g: 0.9, 8) == (0, 1.0)
    assert best_over(lambda g: {1: 1.2, 2: 1.5}.get(g), 8) == (2, 1.5)
