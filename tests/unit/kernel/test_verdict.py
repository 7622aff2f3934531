"""kernel/verdict.py: one rule says whether a measured number is above another beyond noise."""

from __future__ import annotations

import math

import pytest

from specview.kernel.verdict import RULE, Estimate, Outcome, Z, compare, judge, leader


def test_separated_samples_are_faster_and_slower() -> None:
    fast, slow = [100.0, 101.0, 99.0], [80.0, 81.0, 79.0]
    assert compare(fast, slow).outcome is Outcome.ABOVE
    assert compare(slow, fast).outcome is Outcome.BELOW
    verdict = compare(fast, slow)
    assert verdict.beyond_noise
    lo, hi = verdict.a.interval or (0.0, 0.0)
    assert verdict.a.value == pytest.approx(100.0) and verdict.a.samples == 3
    assert (lo, hi) == pytest.approx((100 - Z * 1 / math.sqrt(3), 100 + Z * 1 / math.sqrt(3)))


def test_overlapping_intervals_are_no_difference_beyond_noise() -> None:
    # the case: 78.1 against 77.1 tok/s from a jittery server
    verdict = compare([78.1, 74.0, 81.5], [77.1, 80.2, 73.9])
    assert verdict.outcome is Outcome.WITHIN and not verdict.beyond_noise
    data = verdict.to_dict(rule=str(RULE))
    assert data["outcome"] == "within_noise" and data["rule"] == "mean ± 2 standard errors, intervals apart"
    assert RULE.render("zh") == "均值 ± 2 个标准误，区间不重叠"


def test_means_apart_but_intervals_touching_are_no_difference() -> None:
    # means 10 apart, each se 2.5: intervals [95, 105] and [85, 95] touch, so no verdict
    a, b = Estimate(100.0, 2.5), Estimate(90.0, 2.5)
    assert judge(a, b).outcome is Outcome.WITHIN
    assert judge(Estimate(100.0, 2.4), b).outcome is Outcome.ABOVE


def test_a_single_sample_has_no_spread_and_never_wins() -> None:
    single = Estimate.of([78.1])
    assert single.spread is None and single.interval is None
    assert compare([78.1], [77.1]).outcome is Outcome.WITHIN
    assert compare([500.0], [1.0, 1.1, 0.9]).outcome is Outcome.WITHIN  # however far apart: nothing to judge by
    with pytest.raises(ValueError):
        Estimate.of([])


def test_an_assumed_value_is_a_point() -> None:
    one = Estimate(1.0, 0.0)  # 1× by definition
    assert judge(Estimate(1.3, 0.1), one).outcome is Outcome.ABOVE
    assert judge(Estimate(1.1, 0.1), one).outcome is Outcome.WITHIN


def test_the_leader_must_beat_every_other_beyond_noise() -> None:
    # four runs of one configuration: the highest is not a leader
    same = [Estimate(50.3, 1.0), Estimate(49.8, 1.0), Estimate(50.1, 1.0), Estimate(49.5, 1.0)]
    assert leader(same) is None
    apart = [Estimate(30.0, 1.0), Estimate(60.0, 1.0), Estimate(40.0, 1.0)]
    assert leader(apart) == 1
    assert leader(apart, higher_is_better=False) == 0
    # beyond noise of the last, within noise of the runner-up: no leader
    assert leader([Estimate(60.0, 1.0), Estimate(58.0, 1.0), Estimate(10.0, 1.0)]) is None
    assert leader([Estimate(60.0, 1.0), None]) is None and leader([None, None]) is None
    assert leader([Estimate(60.0, None), Estimate(10.0, 1.0)]) is None
