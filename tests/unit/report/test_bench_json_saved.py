"""`specview bench --json` for fixed simulator runs: every key the stats object had before its
numbers came from the gauge table prints the same bytes (tests/unit/report/bench_json_expected.jsonl,
saved from the hand-written object, one line per run below; saved again from the same keys when the
simulator's alternatives changed, issue 39, which changed every seeded stream)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specview.boundary.jsonio import dumps
from specview.cli import main

pytestmark = pytest.mark.unit

SAVED = Path(__file__).with_name("bench_json_expected.jsonl")
RUNS = (
    ("--preset", "eagle3", "--seed", "7", "--rounds", "300"),
    ("--preset", "eagle3-tree", "--seed", "3", "--rounds", "200"),
    ("--preset", "ngram", "--seed", "2", "--rounds", "150"),
    ("--preset", "qwen3.6-mtp", "--seed", "5", "--rounds", "120", "--temperature", "0.7"),
    ("--preset", "medusa", "--seed", "1", "--rounds", "100", "--gamma", "2"),
)


@pytest.mark.parametrize(("run", "saved"), zip(RUNS, SAVED.read_text("utf-8").splitlines(), strict=True),
                         ids=[run[1] for run in RUNS])
def test_every_saved_key_prints_the_same_bytes(run: tuple[str, ...], saved: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", *run, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    expected = json.loads(saved)
    assert set(expected) <= set(got)
    assert {key: dumps(got[key]) for key in expected} == {key: dumps(value) for key, value in expected.items()}
