"""Only what was measured (issue 25 item 2): c and v(k) that a remote server does not give are "—"
with the reason, never 0 or 1.00, in `bench --json` / `--table`, a replay of its recording, the
compare summary and `sweep gamma --url`. Against the small real llama-server-like engine of
tests/support/fake_engines.py (the real llama-server runs are in test_only_measured_llama.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from specview.backends.factory import make_backend
from specview.backends.replay import ReplayOptions
from specview.features.live.app import SpecviewApp
from specview.kernel.gauges import SUMMARY, gauges
from specview.kernel.runspec import RunSpec
from specview.widgets.summary_table import SummaryTable
from tests.support.app_helpers import wait_until
from tests.support.fake_engines import running_engine

ENV = {**os.environ, "NO_COLOR": "1"}
REASON_C = "a remote server does not time its drafting"
REASON_V = "a remote server does not time its forwards"
REASON_THEORY = "needs c and v(k), which a remote server does not give"


def specview(*args: str) -> str:
    run = subprocess.run([sys.executable, "-m", "specview", *args], capture_output=True, text=True,
                         timeout=180, env=ENV, stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr
    return run.stdout


def assert_unmeasured(stats: dict[str, Any]) -> None:
    """c, v and the theory from them: null, each with its reason; never an assumed 1."""
    for key in ("draft_cost", "verify_ratio", "verify_cost", "speedup_theory", "best_gamma"):
        assert stats[key] is None, key
    reasons = {key: why["text"] for key, why in stats["not_measured"].items()}
    assert reasons == {"draft_cost": REASON_C, "verify_ratio": REASON_V, "verify_cost": REASON_V,
                       "speedup_theory": REASON_THEORY, "best_gamma": REASON_THEORY}
    assert stats["provenance"]["outputs"]["draft_cost"] == "not_measured"


def test_bench_and_its_replay_give_null_and_the_reason_for_c_and_v(tmp_path: Path) -> None:
    record = tmp_path / "remote.jsonl"
    with running_engine("llama") as server:
        out = specview("bench", "--url", server.url, "--json", "--table", "--record", str(record)).splitlines()
    stats = json.loads(out[0])
    assert stats["drafted"] > 0
    assert_unmeasured(stats)
    header, row, *notes = out[1:]
    assert header.endswith(" v") and row.split()[-1] == "—", out  # was `v 1.00`
    c_end = re.search(r"(?<= )c(?= )", header)
    assert c_end is not None and row[:c_end.end()].split()[-1] == "—", out
    assert notes == [f"c —: {REASON_C} · v —: {REASON_V}"]
    replayed = json.loads(specview("replay", str(record), "--json").splitlines()[0])
    assert_unmeasured(replayed)
    report = tmp_path / "remote.md"
    specview("replay", str(record), "--markdown", str(report))
    assert f"| — | {REASON_V} |" in report.read_text() and f"| — | {REASON_C} |" in report.read_text()


async def test_a_replayed_remote_row_shows_dashes_for_c_and_v_in_compare(tmp_path: Path) -> None:
    record = tmp_path / "remote.jsonl"
    with running_engine("llama") as server:
        specview("bench", "--url", server.url, "--json", "--record", str(record))
    specs = [RunSpec(preset="qwen3.6-mtp", seed=5, speed=0.0, max_rounds=40), RunSpec(speed=0.0,
                     options=ReplayOptions(recording=str(record)))]
    backends = [make_backend(s) for s in specs]
    app = SpecviewApp(specs[0], backends[0], compare=backends)
    columns = [spec.key for spec in gauges(SUMMARY)]
    c, v, origin = columns.index("draft_cost"), columns.index("verify_ratio"), len(columns)
    async with app.run_test(size=(160, 40)) as pilot:
        table = app.screen_stack[0].query_one(SummaryTable)

        def drawn() -> bool:
            return (len(table._cells) >= 2 and table.cell(1, origin).strip().endswith("c, v not given")
                    and table.cell(0, v).strip() != "—")

        await wait_until(pilot, drawn)
        assert table.cell(1, v).strip() == "—" and table.cell(1, c).strip() == "—"  # was `1.00` for v
        assert table.cell(0, v).strip() == "1.00"  # the simulator's assumed flat verify cost, said as assumed
        assert "c, v" not in table.cell(0, origin)


def test_sweep_gamma_on_a_server_prints_no_c_zero_and_no_theory(tmp_path: Path) -> None:
    with running_engine("llama") as server:
        text = specview("sweep", "gamma", "--url", server.url, "--gammas", "1,2")
        data = json.loads(specview("sweep", "gamma", "--url", server.url, "--gammas", "1,2", "--json"))
    assert "c 0.000" not in text and f"c — ({REASON_C})" in text
    assert f"v(γ) —: {REASON_V}" in text and f"—: {REASON_THEORY}" in text
    assert "(solid: measured, dotted: theory)" in text and "┊" not in text  # no theory bar without c and v
    assert data["c"] is None and data["not_measured"]["c"]["text"] == REASON_C
    assert all(r["predicted_speedup"] is None and r["verify_ratio"] is None for r in data["rows"])
