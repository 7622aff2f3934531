"""Acceptance against load in words: a line per level with α's bar on 0–1, and no crossover without
a baseline."""

from __future__ import annotations

from specview.features.watch.model import WatchSample
from specview.features.watch.model.by_load import LoadTable
from specview.features.watch.model.crossover import MEASURED, Baseline, LevelRate, given_baseline
from specview.features.watch.screen.load_text import load_lines


def table() -> LoadTable:
    loaded = LoadTable("vllm:num_requests_running")
    for active, accepted, tokens in ((1.0, 30, 40), (1.0, 28, 44), (4.0, 12, 90), (4.0, 10, 86)):
        loaded.add(WatchSample(0.0, 2.0, 10, 30, accepted, (), tokens, active))
    return loaded


def test_a_line_per_level_with_its_intervals_and_the_missing_baseline_said() -> None:
    lines = load_lines(table(), "en")
    assert lines[0] == "by running requests · 95 % intervals"
    one, one_rates, four, four_rates = lines[1:5]
    assert one.startswith("1 ▕") and "yield" in one and "2 windows" in one and "per request" in one_rates
    assert four.startswith("4 ▕") and "α 0.52 (0.38–0.67)" in four
    assert "44.0 tok/s (" in four_rates and "11.0 per request" in four_rates  # 44 ÷ 4
    assert lines[-2].startswith("crossover") and "no baseline" in lines[-2] and "--baseline URL" in lines[-1]
    zh = load_lines(table(), "zh")
    assert "无基线" in zh[-2] and "每请求" in zh[2]
    assert all(len(line) <= 70 for line in lines)  # the watch screen's half


def test_an_empty_table_says_so() -> None:
    lines = load_lines(LoadTable(), "en")
    assert lines[0] == "by running requests · 95 % intervals" and lines[1] == "no window with requests running yet"


def test_with_a_baseline_each_level_says_plain_and_the_crossover_its_basis() -> None:
    loaded = table()
    loaded.baseline = given_baseline([(15.0, None)])
    lines = load_lines(loaded, "en")
    assert lines[3] == "  vs plain 15.0 per request: 1.40× · faster"  # 21.0 per request at 1
    assert lines[6] == "  vs plain 15.0 per request: 0.73× · slower"  # 11.0 at 4
    assert lines[-2] == "crossover at 4 running requests: per request, slower than plain (faster up to 1)"
    assert lines[-1] == "  baseline given: --baseline-tps"
    zh = load_lines(loaded, "zh")
    assert zh[-2].startswith("交叉点在 4") and zh[-1] == "  基线（给定）：--baseline-tps"
    loaded.baseline = Baseline(MEASURED, "http://plain:8080", (LevelRate(2, 9.0, 1.0),))
    assert load_lines(loaded, "en")[-2:] == ["crossover: the baseline has no level watched here (1, 4)",
                                             "  baseline measured: http://plain:8080"]
