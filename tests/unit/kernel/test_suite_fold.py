"""A suite's prompt runs folded per category, and B − A between two configurations."""

from __future__ import annotations

import pytest

from specview.kernel.stats import wilson
from specview.kernel.suite_fold import PromptRun, change, changes, fold
from specview.kernel.verdict import Outcome

pytestmark = pytest.mark.unit


def _run(category: str, accepted: int, verified: int, tps: float, speedup: float | None = 1.0) -> PromptRun:
    return PromptRun(category, accepted, verified, tokens=verified + 10, tau=1 + accepted / 10,
                     tokens_per_second=tps, speedup=speedup)


def test_alpha_is_pooled_with_wilsons_interval_and_categories_keep_their_order() -> None:
    folds = fold([_run("math", 8, 10, 50.0), _run("code", 1, 10, 40.0), _run("math", 2, 10, 70.0)])
    assert [f.category for f in folds] == ["math", "code"]
    math_fold = folds[0]
    assert (math_fold.prompts, math_fold.accepted, math_fold.verified, math_fold.tokens) == (2, 10, 20, 40)
    assert math_fold.alpha == 0.5
    assert math_fold.alpha_interval == wilson(10, 20)


def test_means_carry_two_standard_errors_and_none_from_one_prompt() -> None:
    folds = fold([_run("math", 8, 10, 50.0), _run("math", 2, 10, 70.0), _run("code", 1, 10, 40.0)])
    tps = folds[0].tokens_per_second
    assert tps is not None and tps.value == 60.0 and tps.samples == 2
    assert tps.interval == pytest.approx((40.0, 80.0))  # sd √200 = 14.14, se 10, ± 2 se
    one = folds[1].tokens_per_second
    assert one is not None and one.value == 40.0 and one.interval is None


def test_a_number_no_prompt_measured_stays_unknown() -> None:
    folds = fold([_run("chat", 0, 0, 30.0, speedup=None), _run("chat", 0, 0, 32.0, speedup=None)])
    assert folds[0].alpha is None and folds[0].alpha_interval is None
    assert folds[0].speedup is None


def test_the_difference_is_b_minus_a_and_judged() -> None:
    a = fold([_run("math", 20, 100, 50.0), _run("math", 22, 100, 51.0)])[0]
    b = fold([_run("math", 80, 100, 90.0), _run("math", 82, 100, 91.0)])[0]
    found = change(a, b)
    assert found.alpha is not None and found.alpha.value == pytest.approx(0.6)
    assert found.alpha.interval is not None and found.alpha.interval[0] > 0
    assert found.alpha.outcome is Outcome.ABOVE
    assert found.tokens_per_second is not None and found.tokens_per_second.value == pytest.approx(40.0)
    assert found.tokens_per_second.outcome is Outcome.ABOVE
    back = change(b, a)
    assert back.alpha is not None and back.alpha.outcome is Outcome.BELOW


def test_equal_configurations_differ_within_noise() -> None:
    runs = [_run("chat", 5, 10, 40.0), _run("chat", 6, 10, 44.0)]
    found = change(fold(runs)[0], fold(runs)[0])
    assert found.alpha is not None and found.alpha.value == 0 and found.alpha.outcome is Outcome.WITHIN
    assert found.alpha.interval is not None and found.alpha.interval[0] < 0 < found.alpha.interval[1]


def test_changes_pair_categories_by_id() -> None:
    a = fold([_run("math", 5, 10, 40.0), _run("code", 5, 10, 40.0)])
    b = fold([_run("code", 6, 10, 41.0)])
    assert [c.category for c in changes(a, b)] == ["code"]
