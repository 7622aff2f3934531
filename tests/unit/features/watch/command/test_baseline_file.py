"""`watch --baseline FILE`: a load sweep's "off" side as the crossover's baseline, each concurrency a
level with the repeats' spread per request; a file that is no sweep is one line naming it; what
`--baseline` and `--baseline-tps` ask for together."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from specview.boundary.jsonio import dumps
from specview.features.sweep.model import LoadPoint, LoadSweep
from specview.features.watch.command.baseline_file import MAX_FILE_BYTES, baseline_asked, is_sweep_file, sweep_baseline
from specview.features.watch.model.alert_rules import AlertRules
from specview.features.watch.model.crossover import SWEEP, LevelRate, crossover_of
from specview.kernel.errors import CliError


def written(tmp_path: Path) -> Path:
    sweep = LoadSweep((LoadPoint(1, 30.0, 20.0, 30.0, 20.0, 6, (29.0, 31.0), (19.0, 21.0)),
                       LoadPoint(4, 60.0, 64.0, 15.0, 16.0, 24, (58.0, 62.0), (62.0, 66.0))), repeats=2)
    path = tmp_path / "sweep.json"
    path.write_text(dumps(sweep.to_dict()))
    return path


def test_each_concurrency_is_a_level_of_plain_tokens_per_s_per_request(tmp_path: Path) -> None:
    baseline = sweep_baseline(str(written(tmp_path)))
    assert (baseline.basis, baseline.source) == (SWEEP, "sweep.json")
    one, four = baseline.levels
    assert (one.running, one.per_request, four.running, four.per_request) == (1, 20.0, 4, 16.0)
    # the repeats standard error of the aggregate, × per request ÷ aggregate
    assert one.spread == pytest.approx(1.0) and four.spread == pytest.approx(2.0 * 16.0 / 64.0)
    found = crossover_of([LevelRate(1, 30.0, 0.5), LevelRate(4, 9.0, 0.5)], baseline)
    assert (found.state, found.running, found.paid_up_to) == ("found", 4, 1)


def test_a_file_that_is_no_sweep_is_one_line_naming_it(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something else"}')
    with pytest.raises(CliError) as caught:
        sweep_baseline(str(other))
    assert "other.json" in str(caught.value) and "not a specview load sweep" in str(caught.value)
    big = tmp_path / "big.json"
    with big.open("wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 10)  # sparse: refused by its size before parsing
    with pytest.raises(CliError, match="larger than"):
        sweep_baseline(str(big))


def test_baseline_names_a_server_a_file_or_nothing_and_the_server_or_file_wins(tmp_path: Path) -> None:
    rules = AlertRules(baseline_tokens_per_s=40.0)
    assert baseline_asked(argparse.Namespace(baseline="http://plain:8080"), rules) == "http://plain:8080"
    assert baseline_asked(argparse.Namespace(baseline="plain:8080"), rules) == "plain:8080"  # a fleet instance
    fixed = baseline_asked(argparse.Namespace(baseline=str(written(tmp_path))), rules)
    assert not isinstance(fixed, str) and fixed is not None and fixed.basis == SWEEP
    given = baseline_asked(argparse.Namespace(baseline=None), rules)
    assert not isinstance(given, str) and given is not None and given.every_level == 40.0
    assert baseline_asked(argparse.Namespace(baseline=None), AlertRules()) is None
    assert not is_sweep_file(str(tmp_path)) and not is_sweep_file("http://x/sweep.json")
