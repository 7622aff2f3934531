"""Acceptance against load in the fleet's --json and --csv: each instance's `by_load`, and load rows
whose cells sit under the CSV header's columns."""

from __future__ import annotations

import csv
import io

from specview.features.watch.command.fleet_output import CSV_COLUMNS, csv_header, csv_rows, row_record
from specview.features.watch.model import WatchSample
from specview.features.watch.model.by_load import LoadTable
from specview.features.watch.model.crossover import MEASURED, Baseline, LevelRate
from specview.features.watch.model.fleet import FleetSnapshot, InstanceRow, State


def row(by_load: LoadTable | None) -> InstanceRow:
    window = WatchSample(0.0, 2.0, 10, 30, 20, (), 40, 2.0)
    return InstanceRow("http://a:8000", State.UP, None, "vllm", "ngram", 3, window, (0.8,), False, by_load=by_load)


def loaded() -> LoadTable:
    table = LoadTable()
    for active in (1.0, 1.0, 2.0, 2.0):
        table.add(WatchSample(0.0, 2.0, 10, 30, 20 if active == 1 else 15, (), 40, active))
    return table


def test_the_json_row_holds_its_levels_and_names_the_engines_gauge() -> None:
    record = row_record(row(loaded()), "en")["by_load"]
    assert record["gauge"] == "vllm:num_requests_running" and record["crossover"] is None
    assert [level["running"] for level in record["levels"]] == [1, 2]
    assert record["levels"][1]["yield"] == 0.5 and record["levels"][1]["tokens_per_s_per_request"] == 10.0
    assert row_record(row(None), "en")["by_load"] is None


def test_load_rows_follow_the_header_and_other_rows_leave_the_load_columns_empty() -> None:
    snap = FleetSnapshot(1.0, 2.0, (row(loaded()),), None)
    parsed = list(csv.DictReader(io.StringIO(csv_header() + csv_rows(snap))))
    assert all(len(r) == len(CSV_COLUMNS) for r in parsed)
    instance, fleet, one, two = parsed
    assert instance["row"] == "instance" and instance["alpha_low"] == "" and fleet["windows"] == ""
    assert (one["row"], one["running"], one["windows"], one["draft_yield"]) == ("load", "1", "2", "0.6667")
    assert two["tokens_per_s"] == "20.0" and two["tokens_per_s_per_request"] == "10.0"
    assert float(two["yield_low"]) < 0.5 < float(two["yield_high"])
    assert float(one["tau_low"]) == float(one["tau_high"]) == 3.0  # identical windows: no spread


def test_with_a_baseline_each_load_row_says_plain_the_ratio_the_verdict_and_the_crossover() -> None:
    table = loaded()
    table.baseline = Baseline(MEASURED, "http://plain:8000", (LevelRate(1, 50.0, 1.0), LevelRate(2, 10.0, 0.0)))
    record = row_record(row(table), "en")["by_load"]
    assert record["baseline"]["basis"] == "measured" and record["crossover"]["state"] == "found"
    assert record["crossover"]["running"] == 1
    snap = FleetSnapshot(1.0, 2.0, (row(table),), None)
    _instance, _fleet, one, two = csv.DictReader(io.StringIO(csv_header() + csv_rows(snap)))
    assert (one["plain_tokens_per_s_per_request"], one["vs_plain"], one["vs_plain_outcome"]) == ("50.0", "0.4", "below")
    assert (two["vs_plain"], two["vs_plain_outcome"], two["crossover"], two["baseline_basis"]) == \
        ("1.0", "within_noise", "1", "measured")
