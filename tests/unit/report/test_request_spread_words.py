"""The per-request spread in words: the sentence for outliers, for none, for too few, in both languages."""

from __future__ import annotations

import pytest

from specview.kernel.request_spread import RequestCounts, RequestSpread
from specview.report.request_spread import MAX_NAMED, chart, spread_json, summary

pytestmark = pytest.mark.unit


def spread_of(*counts: tuple[str, int, int]) -> RequestSpread:
    spread = RequestSpread()
    spread.extend(RequestCounts(*c) for c in counts)
    return spread


def test_outliers_are_named_in_the_asked_language() -> None:
    spread = spread_of(*((f"r{i}", 60 + i % 2, 100) for i in range(6)), ("bad", 5, 100))
    en, zh = summary(spread).render("en"), summary(spread).render("zh")
    assert "bad (5 of 100, far below)" in en and "1 of 7" in en
    assert "bad（100 个草稿接受 5 个，远低于其余）" in zh


def test_many_outliers_are_cut_with_a_count() -> None:
    base = [(f"r{i}", 50 + i % 3, 100) for i in range(40)]
    far = [(f"f{i}", 0, 100) for i in range(MAX_NAMED + 3)]
    said = summary(spread_of(*base, *far)).render("en")
    assert "… 3 more" in said and said.count("far below") == MAX_NAMED


def test_few_and_none() -> None:
    assert "fewer than 5" in summary(spread_of(("a", 1, 2), ("b", 2, 2))).render("en")
    assert summary(RequestSpread()).render("en") == "No prompt drafted: no per-request spread."
    assert spread_json(RequestSpread())["pooled_acceptance_rate"] is None


def test_an_empty_histogram_still_states_a_scale() -> None:
    head, *bars = chart(RequestSpread())
    assert "0 requests" in str(head) and len(bars) == 10 and all(b.endswith(" 0") for b in bars)
