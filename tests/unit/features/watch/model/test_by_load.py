"""Acceptance against load: windows placed at their level of running requests, with intervals."""

from __future__ import annotations

import math

from specview.features.watch.model import POSITIONS, WatchSample
from specview.features.watch.model.by_load import MAX_LEVELS, LoadTable
from specview.features.watch.model.invariants import Violation
from specview.kernel.stats import wilson


def window(active: float | None, drafts: int = 10, drafted: int = 30, accepted: int = 20,
           tokens: int | None = 40, dt: float = 2.0, per_position: tuple[int, ...] = (9, 7, 4),
           **extra: object) -> WatchSample:
    return WatchSample(0.0, dt, drafts, drafted, accepted, per_position, tokens, active, **extra)  # type: ignore[arg-type]


def test_each_level_sums_its_windows_with_wilson_for_alpha_and_yield() -> None:
    table = LoadTable("llamacpp:requests_processing")
    for _ in range(3):
        table.add(window(1.0))
    for _ in range(2):
        table.add(window(2.0, accepted=12, per_position=(7, 4, 1), tokens=60))
    one, two = table.rows()
    assert (one.level, one.windows, two.level, two.windows) == (1, 3, 2, 2)
    # α from the position series (every draft γ long): 20 accepted of 10 + 9 + 7 = 26 verified
    assert one.verified == 78 and math.isclose(one.alpha or 0, 60 / 78)
    assert one.alpha_interval == wilson(60, 78)
    assert one.draft_yield == 60 / 90 and one.yield_interval == wilson(60, 90)
    assert two.tau == 1 + 24 / 20 and two.tokens_per_s == 120 / 4 and two.tokens_per_s_per_request == 15
    record = table.to_dict()
    assert record["gauge"] == "llamacpp:requests_processing" and record["crossover"] is None
    assert record["baseline"] is None and [r["running"] for r in record["levels"]] == [1, 2]
    assert record["levels"][0]["alpha_basis"] == POSITIONS


def test_tau_and_tokens_per_second_get_an_interval_from_two_windows_on() -> None:
    table = LoadTable()
    table.add(window(1.0, tokens=40))
    assert table.rows()[0].tokens_per_s_interval is None and table.rows()[0].tau_interval is None
    table.add(window(1.0, tokens=60, accepted=25, per_position=(9, 8, 8)))
    row = table.rows()[0]
    low, high = row.tokens_per_s_interval or (0.0, 0.0)
    assert low < row.tokens_per_s == 25.0 < high  # the windows differ: 20 and 30 tokens/s
    low, high = row.tau_interval or (0.0, 0.0)
    assert low < (row.tau or 0) < high
    same = LoadTable()
    for _ in range(4):
        same.add(window(1.0))
    assert same.rows()[0].tokens_per_s_interval == (20.0, 20.0)  # identical windows: no spread


def test_a_window_counts_at_the_higher_end_and_idle_windows_at_none() -> None:
    table = LoadTable()
    table.add(window(0.0, drafts=0, drafted=0, accepted=0, tokens=0, per_position=()))  # idle
    table.add(window(2.0))  # 0 → 2: counts at 2
    table.add(window(0.0))  # 2 → 0: the requests ended in it, at 2
    table.add(window(0.0, tokens=5, drafts=1, drafted=3, accepted=3, per_position=(1, 1, 1)))  # 0 → 0, moved: 1
    table.add(window(0.0, drafts=0, drafted=0, accepted=0, tokens=0, per_position=()))  # 0 → 0, still: idle
    table.add(window(2.0))
    table.add(window(0.0, drafts=0, drafted=0, accepted=0, tokens=0, per_position=()))  # 2 → 0, still: idle
    assert [(r.level, r.windows) for r in table.rows()] == [(1, 1), (2, 3)]
    assert table.unplaced == 0


def test_what_cannot_be_placed_is_counted_not_kept() -> None:
    table = LoadTable()
    table.add(window(None))  # no gauge
    table.add(window(float("nan")))
    table.add(window(1e9))  # not a count of requests
    table.add(window(1.0, violations=(Violation("delta", "accepted_le_drafted", {}),)))
    assert table.rows() == [] and table.unplaced == 4
    for level in range(1, MAX_LEVELS + 10):
        table.add(window(float(level)))
        table.add(window(0.0, drafts=0, drafted=0, accepted=0, tokens=0, per_position=()))
    assert len(table.rows()) == MAX_LEVELS and table.unplaced >= 4 + 9


def test_a_restart_does_not_carry_the_load_before_it() -> None:
    table = LoadTable()
    table.add(window(3.0))
    table.add(window(1.0, reset=True))
    assert [r.level for r in table.rows()] == [1, 3]
