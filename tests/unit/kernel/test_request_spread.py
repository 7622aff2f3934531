"""The per-request spread: histogram bins, the binomial outlier rule, and its bounds."""

from __future__ import annotations

import math
import tracemalloc

import pytest

from specview.boundary.bounds import Invalid
from specview.kernel.request_spread import (
    BINS,
    HIGH,
    LOW,
    MAX_KEPT,
    RequestCounts,
    RequestSpread,
    binomial_tail,
    checked,
)

pytestmark = pytest.mark.unit


def exact_lower(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1))


@pytest.mark.parametrize(("k", "n", "p"), [(0, 8, 0.3), (2, 20, 0.4), (5, 40, 0.05), (30, 40, 0.9), (0, 1, 0.5)])
def test_the_exact_tail_matches_the_sum_of_terms(k: int, n: int, p: float) -> None:
    assert binomial_tail(k, n, p, upper=False) == pytest.approx(exact_lower(k, n, p), rel=1e-9)
    assert binomial_tail(k, n, p, upper=True) == pytest.approx(1 - exact_lower(k - 1, n, p) if k else 1.0,
                                                               rel=1e-9)


def test_the_normal_tail_is_close_on_a_long_request() -> None:
    exact = exact_lower(400, 1000, 0.45)
    assert binomial_tail(400, 1000, 0.45, upper=False) == pytest.approx(exact, rel=0.05)


def test_a_huge_request_is_tested_in_bounded_work() -> None:
    assert binomial_tail(10**15, 2**53, 0.5, upper=False) == pytest.approx(0.0, abs=1e-300)
    assert 0.0 <= binomial_tail(3, 2**53, 1e-15, upper=True) <= 1.0


def test_bins_place_each_rate_and_one_goes_in_the_last() -> None:
    spread = RequestSpread()
    spread.extend([RequestCounts("a", 0, 10), RequestCounts("b", 5, 10), RequestCounts("c", 10, 10),
                   RequestCounts("d", 0, 0)])
    bins = spread.histogram()
    assert len(bins) == BINS and bins[0] == 1 and bins[5] == 1 and bins[-1] == 1
    assert spread.count == 3 and spread.no_drafts == 1 and spread.pooled() == pytest.approx(0.5)


def test_a_short_low_request_is_noise_and_a_long_one_is_listed() -> None:
    steady = [RequestCounts(f"r{i}", 58 + i, 100) for i in range(6)]
    short = RequestSpread()
    short.extend([*steady, RequestCounts("short", 1, 8)])  # 0.12 of 8: could be luck
    assert short.outliers() == []
    long = RequestSpread()
    long.extend([*steady, RequestCounts("long", 12, 100)])  # 0.12 of 100: not luck
    (found,) = long.outliers()
    assert found.request.id == "long" and found.reason == LOW and found.expected == pytest.approx(0.605)
    assert found.p_value < 1e-10


def test_a_repetition_loop_is_listed_high() -> None:
    spread = RequestSpread()
    spread.extend([*(RequestCounts(f"r{i}", 20, 100) for i in range(5)), RequestCounts("loop", 95, 100)])
    (found,) = spread.outliers()
    assert found.request.id == "loop" and found.reason == HIGH


def test_too_few_requests_list_none() -> None:
    spread = RequestSpread()
    spread.extend([RequestCounts("a", 0, 500), *(RequestCounts(f"b{i}", 500, 500) for i in range(3))])
    assert spread.outliers() == []


def test_a_varied_mix_is_a_wide_distribution_not_outliers() -> None:
    """Four prompts of a real n-gram server, twice each: every one differs from the pooled rate by
    far more than a binomial allows, yet none is outside the spread of the others."""
    spread = RequestSpread()
    for i, (a, d) in enumerate([(12, 78), (32, 36), (22, 39), (33, 36)] * 2):
        spread.add(RequestCounts(f"p{i}", a, d))
    assert spread.outliers() == []


@pytest.mark.parametrize(("accepted", "drafted"), [(5, 3), (-1, 3), (1, -2), (True, 3), (1.5, 3), (1, 2**60)])
def test_counts_that_lie_are_refused(accepted: object, drafted: object) -> None:
    with pytest.raises(Invalid, match="probe 1"):
        checked("x", accepted, drafted, "probe 1")


def test_a_million_requests_keep_bounded_memory() -> None:
    spread = RequestSpread()
    tracemalloc.start()
    try:
        for i in range(10**6):
            spread.add(RequestCounts("same", i % 7, 7))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert spread.count == MAX_KEPT and spread.more == 10**6 - MAX_KEPT
    assert peak < 2 * 2**20
