"""`bench --json` carries every gauge `bench --table` shows, read from the gauge table
(report/run_json.py's `gauge_numbers`): a bench gauge is a JSON key with nothing written for it."""

from __future__ import annotations

import pytest

from specview.features.live.bench_command import bench_one
from specview.kernel.gauges import BENCH, gauges
from specview.kernel.runspec import RunSpec
from specview.report.run_json import JSON_KEYS, json_digits

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("preset", ["eagle3", "eagle3-tree", "ngram"])
def test_every_bench_gauge_is_a_key_with_its_whole_run_value(preset: str) -> None:
    result = bench_one(RunSpec(preset=preset, seed=4), 200)
    for spec in gauges(BENCH):
        key = JSON_KEYS.get(spec.key, spec.key)
        if key is None:  # said inside another object (gamma_auto.chosen.gamma)
            continue
        value, digits = spec.run(result.reading), json_digits(spec)
        assert key in result.stats, spec.key
        assert result.stats[key] == (value if digits is None or value is None else round(value, digits)), spec.key


def test_a_gauge_the_json_did_not_name_by_hand_is_there() -> None:
    stats = bench_one(RunSpec(preset="eagle3", seed=4), 200).stats
    assert "context_drop" in stats  # no line of run_json.py names it
