"""doctor on a real CPU vLLM with n-gram speculation: speculation on with its method and γ, which γ, the
window's load levels, and the per-request spread: each probe's counts come from the answer's
`metrics.speculative_decoding` (the server runs with `--per-request-spec-decode-metrics`), with vLLM's own
request ids; its per-step lists add up to its totals, so none is set aside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.limited_run import base_env, run_cli
from tests.support.vllm_server import NGRAM_CONFIG, vllm_python, vllm_server

pytestmark = pytest.mark.skipif(vllm_python() is None, reason="vLLM not installed (make vllm)")

TIME_LIMIT = 240.0


def test_vllm_probes_give_the_spread_with_vllms_ids(tmp_path: Path) -> None:
    with vllm_server(NGRAM_CONFIG) as server:
        run = run_cli(["doctor", server.root, "--window", "1", "--probe", "5", "--json"], base_env(tmp_path),
                      timeout=TIME_LIMIT)
    assert not run.timed_out and run.returncode == 0, run.err
    (one,) = json.loads(run.out)["servers"]
    assert one["engine"] == "vllm"
    spread = one["per_request"]
    assert spread["source"] == "metrics.speculative_decoding" and spread["failed"] == 0
    assert spread["count"] + spread["no_drafts"] == 5 and spread["count"] >= 3
    assert sum(b["count"] for b in spread["bins"]) == spread["count"]
    assert 0.0 < spread["pooled_acceptance_rate"] <= 1.0
    (found,) = [f for f in one["findings"] if f["id"].startswith("spread")]
    assert found["evidence"][0] == {"name": "requests_with_drafts", "value": spread["count"],
                                    "source": "metrics.speculative_decoding"}
    assert "probe_failed" not in {f["id"] for f in one["findings"]}
    # the same window's other findings: on, n-gram at the configured γ, which γ, the load it saw
    by_id = {f["id"]: f for f in one["findings"]}
    assert "on" in by_id and by_id["on"]["severity"] == "ok", by_id.keys()
    gamma = next(e["value"] for e in by_id["on"]["evidence"] if e["name"] == "gamma")
    assert gamma == NGRAM_CONFIG["num_speculative_tokens"], by_id["on"]
    assert {"gamma_keep", "gamma_change", "gamma_none"} & by_id.keys(), by_id.keys()
    assert {"load", "load_pays", "load_crossover"} & by_id.keys(), by_id.keys()
