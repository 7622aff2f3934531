"""features/watch/model/: scrapes folded into rates, counter resets and invariants (no server needed)."""

from __future__ import annotations

import re

import pytest

from specview.features.watch.command import line
from specview.features.watch.model import COUNTS, POSITIONS, Scrape, WatchModel, WatchSample, verified_drafts
from specview.features.watch.model.invariants import (
    ACCEPTED_LE_DRAFTED,
    POSITIONS_FALL,
    POSITIONS_SUM,
    check_invariants,
)
from specview.features.watch.model.position_reading import CONDITIONAL, MARGINAL, position_reading
from specview.kernel.gauges import position_texts
from specview.kernel.theory import conditional_from_marginal
from specview.tui.gauges import violation_text, watch_texts


def scrape(t: float, drafts: int, tokens: int, accepted: int, per_pos: tuple[int, ...], generated: int = 0,
           in_flight: int | None = None, active: float = 0.0) -> Scrape:
    return Scrape(t, drafts, tokens, accepted, per_pos, generated, in_flight, active)


def test_deltas_and_rates_between_two_scrapes() -> None:
    model = WatchModel()
    assert model.feed(scrape(0.0, 10, 30, 20, (9, 7, 4), 50)) is None
    sample = model.feed(scrape(2.0, 20, 60, 40, (18, 14, 8), 110, active=2))
    assert sample is not None
    assert (sample.drafts, sample.draft_tokens, sample.accepted, sample.per_position) == (10, 30, 20, (9, 7, 4))
    assert sample.drafts_per_s == 5.0 and sample.draft_tokens_per_s == 15.0  # verify steps, tokens drafted
    assert sample.accepted_per_s == 10.0 and sample.tokens_per_s == 30.0
    assert sample.draft_yield == pytest.approx(20 / 30)
    assert sample.mean_accepted_length == 3.0  # 1 + 20 / 10
    # verified: all 10 drafts verify position 0; 9 reached position 1; 7 reached position 2
    assert sample.alpha == pytest.approx(20 / (10 + 9 + 7))
    assert sample.per_position_acceptance == pytest.approx((0.9, 7 / 9, 4 / 7))
    assert sample.active == 2 and not sample.reset and not sample.violations
    sglang = WatchModel()
    sglang.feed(Scrape(0.0, gauges={"sglang:spec_accept_length": 2.0}))
    passed = sglang.feed(Scrape(1.0, gauges={"sglang:spec_accept_length": 2.5}))
    assert passed is not None and passed.to_dict()["gauges"] == {"sglang:spec_accept_length": 2.5}
    assert model.totals().accepted == 20


def test_a_restarted_server_counts_from_zero_and_is_marked() -> None:
    model = WatchModel()
    model.feed(scrape(0.0, 100, 300, 200, (90, 70, 40), 900))
    sample = model.feed(scrape(1.0, 3, 9, 6, (3, 2, 1), 12))
    assert sample is not None and sample.reset
    assert (sample.drafts, sample.accepted, sample.tokens) == (3, 6, 12)
    assert model.resets == 1 and not sample.violations
    after = model.feed(scrape(2.0, 4, 12, 8, (4, 3, 1), 16))
    assert after is not None and not after.reset and after.accepted == 2
    assert model.totals().accepted == 8


def test_tokens_of_running_requests_count_as_they_go() -> None:
    # llama-server adds a request's tokens to its counter only at the end; /slots shows progress
    model = WatchModel()
    model.feed(scrape(0.0, 0, 0, 0, (), 100, in_flight=0))
    mid = model.feed(scrape(1.0, 0, 0, 0, (), 100, in_flight=40))
    end = model.feed(scrape(2.0, 0, 0, 0, (), 160, in_flight=0))  # the request (60 tokens) ended
    assert mid is not None and end is not None
    assert (mid.tokens, end.tokens) == (40, 20) and not end.reset
    # a request that ends between the /metrics read and the /slots read is in neither for one
    # poll: that dip is made up afterwards, never counted twice
    model = WatchModel()
    model.feed(scrape(0.0, 0, 0, 0, (), 100, in_flight=0))
    counted = [model.feed(scrape(t, 0, 0, 0, (), tokens, in_flight=flight))
               for t, tokens, flight in ((1.0, 100, 40), (2.0, 100, 0), (3.0, 160, 0), (4.0, 160, 0))]
    assert [s.tokens for s in counted if s is not None] == [40, 0, 20, 0]
    assert model.totals().tokens == 60


def test_broken_invariants_are_reported() -> None:
    assert check_invariants(10, 30, 20, (9, 7, 4), "scrape") == []
    broken = check_invariants(10, 30, 31, (9, 7, 4), "scrape")
    assert {v.rule for v in broken} == {ACCEPTED_LE_DRAFTED, POSITIONS_SUM}
    assert broken[0].values == {"accepted": 31, "drafted": 30}
    rising = check_invariants(10, 30, 12, (5, 7), "delta")
    assert [(v.rule, v.values) for v in rising] == [(POSITIONS_FALL, {"position": 1, "count": 7, "before": 5})]
    model = WatchModel()
    model.feed(scrape(0.0, 0, 0, 0, (0, 0)))
    bad = model.feed(scrape(1.0, 5, 10, 11, (5, 6)))
    assert bad is not None and {v.where for v in bad.violations} == {"scrape", "delta"}
    assert len(model.violations) >= 2


def test_derivations_without_data() -> None:
    assert verified_drafts(0, 0, 0, ()) is None
    assert conditional_from_marginal((0, 0), 0) == [None, None]
    model = WatchModel()
    model.feed(Scrape(0.0))
    sample = model.feed(Scrape(1.0, tokens=None, active=None))
    assert sample is not None and sample.tokens_per_s is None and not model.has_drafts


def test_a_broken_invariant_reads_in_each_language() -> None:
    v = check_invariants(10, 30, 31, (9, 7, 15), "delta")[0]
    assert violation_text(v, "en") == "accepted ≤ drafted (interval: 31 accepted of 30 drafted)"
    zh = violation_text(v, "zh")
    assert "31" in zh and "30" in zh and not re.search("[A-Za-z]", zh.replace("token", ""))  # the glossary's word


def test_the_monitor_gauges_come_from_the_gauge_table() -> None:
    model = WatchModel()
    model.feed(scrape(0.0, 10, 30, 20, (9, 7, 4), 50))
    sample = model.feed(scrape(2.0, 20, 60, 40, (18, 14, 8), 110, active=2))
    shown = {g.key: (g.value, g.note) for g in watch_texts(sample, "en")}
    assert shown == {
        "draft_tokens_per_second": ("15.0", ""), "accepted_per_second": ("10.0", ""),
        "alpha": ("0.77", "yield 0.67 (engines' acceptance rate) · α from the position series"),
        "mean_accepted_length": ("3.00", ""),
        "tokens_per_second": ("30.0", ""), "running": ("2", ""),
    }
    assert all(g.value == "—" for g in watch_texts(None, "zh"))


def test_alpha_from_the_series_only_where_they_describe_every_draft() -> None:
    """llama-server's n-gram drafts what it finds, up to its 48 position series: 79 drafted, 79
    accepted read α 0.9634 < yield 1.0 when every draft was taken to have 48 tokens."""
    series = (30, 20, 15, 10, 4) + (0,) * 43  # Σ 79 over 48 series; 30 drafts of 1…5 tokens
    model = WatchModel()
    model.feed(scrape(0.0, 0, 0, 0, (0,) * 48))
    sample = model.feed(scrape(1.0, 30, 79, 79, series))
    assert sample is not None and sample.draft_yield == 1.0
    assert sample.alpha == 1.0 and sample.alpha_basis == COUNTS  # every drafted token accepted: none rejected
    assert sample.to_dict()["alpha_basis"] == "counts"
    # a rejection in some drafts: the counts' α is the lowest they allow, never below the yield
    assert verified_drafts(30, 80, 60, (25, 20, 15)) == (60 + 20, COUNTS)  # at most one a refused token
    assert verified_drafts(10, 50, 20, (9, 6, 5)) == (20 + 10, COUNTS)  # at most one a draft
    # every draft γ tokens long (drafted = drafts × series): the series are exact, as before
    assert verified_drafts(10, 30, 20, (9, 7, 4)) == (10 + 9 + 7, POSITIONS)
    # no series at all (a server without them): the counts still give α, said as such
    assert verified_drafts(10, 40, 25, ()) == (25 + 10, COUNTS)
    shown = {g.key: g.note for g in watch_texts(sample, "en")}
    assert shown["alpha"] == "yield 1.00 (engines' acceptance rate) · α from the counts (at least this)"
    assert "计数" in {g.key: g.note for g in watch_texts(sample, "zh")}["alpha"]


def test_per_position_acceptance_of_short_drafts_is_said_to_be_a_lower_bound() -> None:
    """The 79/79 case: position k's denominator (the drafts that accepted k − 1) counts drafts that
    ended there, so accepted(k) ÷ accepted(k − 1) understates it: "≥" after position 0."""
    series = (30, 20, 15, 10, 4) + (0,) * 43
    model = WatchModel()
    model.feed(scrape(0.0, 0, 0, 0, (0,) * 48))
    short = model.feed(scrape(1.0, 30, 79, 79, series))
    assert short is not None and short.per_position_bound
    assert short.to_dict()["per_position_bound"] == "lower_bound"
    bars = position_texts(short.per_position_acceptance[:3], bound=True)
    assert [t for _, t in bars] == ["1.00", "≥ 0.67", "≥ 0.75"]  # 30/30, 20/30, 15/20
    # the line (and the bars) read such drafts the marginal way, accepted(k) ÷ drafts, and say so
    assert position_reading(short)[0] == MARGINAL
    assert [t for _, t in position_texts(position_reading(short)[1][:3])] == ["1.00", "0.67", "0.50"]  # ÷ 30
    assert "(marginal) 1.00 0.67 0.50" in line(short, "en")
    assert "(边际) 1.00 0.67 0.50" in line(short, "zh") and "≥" not in line(short, "en")
    # every draft as long as the series: exact, no mark
    model = WatchModel()
    model.feed(scrape(0.0, 0, 0, 0, (0, 0, 0)))
    full = model.feed(scrape(1.0, 10, 30, 20, (9, 7, 4)))
    assert full is not None and not full.per_position_bound
    assert full.to_dict()["per_position_bound"] == "exact" and "≥" not in line(full, "en")
    assert position_reading(full) == (CONDITIONAL, full.per_position_acceptance)
    assert "(conditional) 0.90 0.78 0.57" in line(full, "en")


@pytest.mark.parametrize("drafts", [1, 3, 7, 20])
def test_alpha_is_never_below_the_yield(drafts: int) -> None:
    for drafted in range(drafts, drafts * 6):
        for accepted in range(drafted + 1):
            found = verified_drafts(drafts, drafted, accepted, (accepted,) + (0,) * 5)
            assert found is not None
            verified, _ = found
            assert verified <= drafted and (verified == 0 or accepted / verified >= accepted / drafted)


def test_a_window_without_drafts_keeps_the_reading_shown_before() -> None:
    idle = WatchSample(0.0, 1.0, 0, 0, 0, (), 0, 0.0)
    assert position_reading(idle, MARGINAL) == (MARGINAL, ())
    assert position_reading(idle)[0] == CONDITIONAL and position_reading(None, MARGINAL)[0] == MARGINAL


def test_each_ratio_is_named_for_what_it_divides() -> None:
    """α (accepted ÷ verified) apart from the engines' acceptance rate (accepted ÷ drafted, vLLM's
    dashboard and `vllm bench serve`); the conditional per-position series beside the marginal one
    (the dashboard's: accepted at k ÷ drafts), each saying which; the draft share (accepted ÷
    generated, the dashboard's "output from drafts"); drafts/s apart from draft tokens/s."""
    model = WatchModel()
    model.feed(scrape(0.0, 10, 30, 20, (9, 7, 4), 50))
    sample = model.feed(scrape(2.0, 20, 60, 40, (18, 14, 8), 110))
    assert sample is not None
    d = sample.to_dict()
    assert d["alpha"] == round(20 / 26, 4) and d["alpha_basis"] == POSITIONS
    assert d["acceptance_rate"] == d["draft_yield"] == round(20 / 30, 4)
    assert d["draft_share"] == round(20 / 60, 4)
    assert d["per_position_acceptance"] == [0.9, round(7 / 9, 4), round(4 / 7, 4)]
    assert d["per_position_acceptance_basis"] == "conditional" and d["per_position_bound"] == "exact"
    assert d["per_position_marginal"] == [0.9, 0.7, 0.4] and d["per_position_marginal_basis"] == "marginal"
    assert (d["drafts_per_s"], d["draft_tokens_per_s"]) == (5.0, 15.0)
    # nothing drafted: every ratio None, the series empty, no basis
    idle = model.feed(scrape(3.0, 20, 60, 40, (18, 14, 8), 110))
    assert idle is not None
    i = idle.to_dict()
    assert all(i[k] is None for k in ("alpha", "acceptance_rate", "draft_share", "per_position_acceptance_basis",
                                      "per_position_marginal_basis", "per_position_bound"))
    assert i["per_position_marginal"] == [] and i["per_position_acceptance"] == [None, None, None]
