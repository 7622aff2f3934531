"""The crossover under load: speculation's tokens/s per request against plain decoding's, level by
level, by the one noise rule (kernel/verdict.judge), with the baseline's basis."""

from __future__ import annotations

from specview.features.watch.model import WatchSample
from specview.features.watch.model.by_load import LoadTable
from specview.features.watch.model.crossover import (
    FOUND,
    GIVEN,
    MEASURED,
    NO_BASELINE,
    NO_COMMON_LEVEL,
    NOT_REACHED,
    Baseline,
    LevelRate,
    crossover_of,
    given_baseline,
)
from specview.kernel.verdict import Outcome

SPEC = [LevelRate(1, 30.0, 1.0), LevelRate(2, 22.0, 1.0), LevelRate(4, 9.0, 0.5), LevelRate(8, 5.0, 0.5)]
PLAIN = Baseline(MEASURED, "http://plain:8080", (LevelRate(1, 20.0, 1.0), LevelRate(2, 19.0, 1.0),
                                                 LevelRate(4, 14.0, 1.0), LevelRate(8, 10.0, 1.0)))


def test_the_crossover_is_the_first_level_slower_beyond_noise() -> None:
    found = crossover_of(SPEC, PLAIN)
    assert found.state == FOUND and found.running == 4 and found.paid_up_to == 1
    assert [c.outcome for c in found.compared] == [Outcome.ABOVE, Outcome.WITHIN, Outcome.BELOW, Outcome.BELOW]
    record = found.to_dict()
    assert record["basis"] == "measured" and record["source"] == "http://plain:8080"
    assert record["levels"][2] == {"running": 4, "tokens_per_s_per_request": 9.0,
                                   "plain_tokens_per_s_per_request": 14.0, "vs_plain": 0.643, "outcome": "below"}


def test_only_levels_both_sides_have_are_compared() -> None:
    plain = Baseline(MEASURED, "p", (LevelRate(2, 19.0, 1.0), LevelRate(16, 1.0, 0.1)))
    found = crossover_of(SPEC, plain)
    assert found.state == NOT_REACHED and [c.running for c in found.compared] == [2] and found.running is None
    assert crossover_of(SPEC, Baseline(MEASURED, "p", (LevelRate(3, 10.0, 1.0),))).state == NO_COMMON_LEVEL
    assert crossover_of(SPEC, None).state == NO_BASELINE


def test_a_plain_level_that_made_no_token_is_not_compared() -> None:
    """Plain's windows at a level in which no token moved (a real CPU vLLM's, between requests) measured
    no decoding: comparing with them said "19375× faster"."""
    plain = Baseline(MEASURED, "p", (LevelRate(1, 20.0, 1.0), LevelRate(2, 0.0, 0.0), LevelRate(4, 14.0, 1.0)))
    found = crossover_of(SPEC, plain)
    assert [c.running for c in found.compared] == [1, 4] and found.state == FOUND and found.running == 4


def test_one_window_has_no_spread_so_it_is_within_noise_however_far_apart() -> None:
    found = crossover_of([LevelRate(1, 1.0, None)], PLAIN)
    assert found.state == NOT_REACHED and found.compared[0].outcome is Outcome.WITHIN


def test_a_given_number_counts_at_every_level_not_given_its_own_as_a_point() -> None:
    given = given_baseline([(15.0, None), (25.0, 1)])
    assert given is not None and given.basis == GIVEN
    assert given.at(1) == LevelRate(1, 25.0, 0.0) and given.at(4) == LevelRate(4, 15.0, 0.0)
    found = crossover_of(SPEC, given)
    assert (found.state, found.running, found.paid_up_to) == (FOUND, 4, 2)  # 30 ≈ 25±2, 22−2 > 15, 9+1 < 15
    assert given_baseline([]) is None


def test_a_plain_servers_table_is_the_measured_baseline_of_another() -> None:
    plain, spec = LoadTable(), LoadTable()
    for active, tokens in ((1.0, 40), (1.0, 42), (2.0, 70), (2.0, 72)):
        plain.add(WatchSample(0.0, 2.0, 0, 0, 0, (), tokens, active))
    for active, tokens in ((1.0, 60), (1.0, 62), (2.0, 50), (2.0, 52)):
        spec.add(WatchSample(0.0, 2.0, 10, 30, 20, (), tokens, active))
    spec.baseline = plain.as_baseline("http://plain:8080")
    assert [(r.running, r.per_request) for r in spec.baseline.levels] == [(1, 20.5), (2, 17.75)]
    record = spec.to_dict()
    assert record["baseline"]["basis"] == "measured" and record["crossover"]["state"] == FOUND
    assert (record["crossover"]["running"], record["crossover"]["paid_up_to"]) == (2, 1)  # 30.5 > 20.5; 12.75 < 17.75
    spec.baseline = None
    assert spec.to_dict()["baseline"] is None and spec.to_dict()["crossover"] is None
