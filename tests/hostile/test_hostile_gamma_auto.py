"""`--gamma auto` where it cannot work: one clear line naming what it would need, exit 2, quickly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.hostile_checks import one_error_line
from tests.support.limited_run import base_env, run_cli

CASES = {
    "simulator": (["bench", "--gamma", "auto", "--json"], "the simulator's are the preset's assumptions"),
    "remote": (["bench", "--gamma", "auto", "--url", "http://127.0.0.1:9/v1", "--json"],
               "the verify cost of each k-token forward (v(k))"),
    "no-spec": (["bench", "--gamma", "auto", "--demo", "--no-spec", "--json"], "a plain run drafts nothing"),
    "adaptive": (["bench", "--gamma", "auto", "--demo", "--adaptive", "--json"], "two ways of choosing γ"),
    "not-a-word": (["bench", "--gamma", "automatic", "--json"], "--gamma must be an integer"),
}


@pytest.mark.parametrize("case", [pytest.param(case, id=case, marks=[pytest.mark.llama] if "--demo" in args else [])
                                  for case, (args, _) in CASES.items()])
def test_gamma_auto_where_it_cannot_work_is_one_line_and_exit_2(tmp_path: Path, case: str) -> None:
    args, says = CASES[case]
    run = run_cli(args, base_env(tmp_path), timeout=60)
    assert not run.timed_out
    line = one_error_line(run.stderr.decode())
    assert says in line, line
    assert run.returncode == 2
    assert not run.stdout.strip()


def test_gamma_auto_on_a_replay_says_a_recording_cannot_re_choose(tmp_path: Path) -> None:
    recording = tmp_path / "r.jsonl"
    made = run_cli(["--record", str(recording), "bench", "--rounds", "5", "--json"], base_env(tmp_path))
    assert made.returncode == 0 and recording.exists()
    for args in (["--gamma", "auto", "replay", str(recording), "--json"],
                 ["--gamma", "auto", "bench", f"replay:{recording}", "--json"]):
        run = run_cli(args, base_env(tmp_path), timeout=60)
        line = one_error_line(run.stderr.decode())
        assert "replay" in line and run.returncode == 2, line
