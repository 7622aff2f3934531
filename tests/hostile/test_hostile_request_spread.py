"""doctor's per-request spread against a real HTTP server that lies in its per-request counts: accepted
above drafted, a negative count, a million drafted tokens for 48, a vLLM step list of a million entries.
Each lie is one line naming the field it came from; the lying answer is left out of the spread, and the
histogram and outliers are built on the honest answers alone."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.support.hostile_checks import assert_terminal_clean
from tests.support.hostile_server import HostileServer, Scenario, hostile_server
from tests.support.limited_run import base_env, run_cli
from tests.support.served import send_body

TIME_LIMIT = 60.0
METRICS = ("llamacpp:spec_decode_num_drafts_total 0\nllamacpp:spec_decode_num_draft_tokens_total 0\n"
           "llamacpp:spec_decode_num_accepted_tokens_total 0\nllamacpp:tokens_predicted_total 0\n"
           "llamacpp:requests_processing 0\n")
PROPS = json.dumps({"build_info": "b1",
                    "default_generation_settings": {"params": {"speculative.types": "ngram-simple"}}})


def timings(accepted: Any, drafted: Any) -> dict[str, Any]:
    return {"predicted_n": 48, "predicted_ms": 1000.0, "draft_n": drafted, "draft_n_accepted": accepted}


HONEST = [{"id": f"cmpl-{i}", "timings": timings(20 + i % 2, 40)} for i in range(5)]
LIES = [
    ({"id": "cmpl-over", "timings": timings(90, 40)}, "timings.draft_n: 90 accepted of 40"),
    ({"id": "cmpl-neg", "timings": timings(-4, 40)}, "timings.draft_n_accepted"),
    ({"id": "cmpl-huge", "timings": timings(9, 10**6)}, "1000000 drafted for 48 tokens"),
    ({"id": "cmpl-steps", "usage": {"completion_tokens": 48},
      "metrics": {"speculative_decoding": {"num_spec_steps": 1, "num_draft_tokens": 3, "num_accepted_draft_tokens": 1,
                                           "per_step_accepted": [1] * 1_000_000,
                                           "per_step_drafted": [3] * 1_000_000}}}, "per_step_accepted"),
]


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        running.scenario = Scenario(models=[{"id": "m", "owned_by": "llamacpp"}], get={
            "/props": (200, "application/json", PROPS.encode()), "/slots": (200, "application/json", b"[]"),
            "/metrics": (200, "text/plain; version=0.0.4", METRICS.encode())})
        yield running


def answering(server: HostileServer, answers: list[dict[str, Any]]) -> None:
    """Each completion gets the next of `answers` (in the order the requests arrive)."""
    lock, turn = threading.Lock(), itertools.count()

    def answer(handler: BaseHTTPRequestHandler) -> None:
        with lock:
            body = answers[next(turn) % len(answers)]
        send_body(handler, 200, json.dumps(body).encode())

    server.wire["POST"] = answer


@pytest.mark.parametrize(("lie", "said"), LIES)
def test_a_lying_answer_is_one_line_and_left_out_of_the_spread(server: HostileServer, tmp_path: Path,
                                                               lie: dict[str, Any], said: str) -> None:
    answering(server, [lie, *HONEST])
    run = run_cli(["doctor", server.root, "--window", "0.5", "--probe", "6", "--json"], base_env(tmp_path),
                  timeout=TIME_LIMIT)
    assert not run.timed_out and run.returncode == 0, run.err
    (one,) = json.loads(run.out)["servers"]
    spread = one["per_request"]
    assert spread["requests"] == 6 and spread["failed"] == 1 and spread["count"] == 5
    assert sum(b["count"] for b in spread["bins"]) == 5 and spread["bins"][5]["count"] == 5  # 20/40, 21/40
    assert spread["outliers"] == []  # nothing built on the lie
    (failed,) = [f for f in one["findings"] if f["id"] == "probe_failed"]
    assert "1 of 6" in failed["text"] and said in failed["text"]
    assert "\n" not in failed["text"]
    text = run_cli(["doctor", server.root, "--window", "0.5", "--probe", "6"], base_env(tmp_path), timeout=TIME_LIMIT)
    assert text.returncode == 0 and said in text.out
    assert_terminal_clean(text.stdout)


def test_a_hostile_id_is_shown_safely_and_short(server: HostileServer, tmp_path: Path) -> None:
    loud = {"id": "\x1b]52;c;cGF3bmVk\x07\x1b[2J" + "x" * 100_000, "timings": timings(40, 40)}
    answering(server, [loud, *HONEST])
    run = run_cli(["doctor", server.root, "--window", "0.5", "--probe", "6"], base_env(tmp_path), timeout=TIME_LIMIT)
    assert run.returncode == 0, run.err
    assert_terminal_clean(run.stdout)
    assert "xxxxx" in run.out and "x" * 200 not in run.out
