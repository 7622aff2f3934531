"""`specview doctor` against a real HTTP server that lies: counters that break their invariants, a
/props of too many keys, probes that never answer. Each case runs the command as a user does (a
child process under a memory and a time limit): the lie is one line naming the source, no finding
rests on a number that failed its check, and the run ends in bounded time."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.hostile_checks import assert_terminal_clean
from tests.support.hostile_server import HostileServer, Scenario, hostile_server
from tests.support.limited_run import Run, base_env, run_cli
from tests.support.served import send_body

TIME_LIMIT = 60.0
PROPS = json.dumps({"build_info": "b1", "default_generation_settings": {"params": {"speculative.types": "draft-mtp"}}})
BUILT_ON_COUNTERS = {"pays_unknown", "pays_measured", "gamma_change", "gamma_keep", "gamma_none", "numbers",
                     "numbers_differ"}


def metrics(drafts: int, drafted: int, accepted: int, positions: tuple[int, ...]) -> str:
    lines = [f"llamacpp:spec_decode_num_drafts_total {drafts}",
             f"llamacpp:spec_decode_num_draft_tokens_total {drafted}",
             f"llamacpp:spec_decode_num_accepted_tokens_total {accepted}",
             "llamacpp:tokens_predicted_total 500", "llamacpp:requests_processing 0"]
    lines += [f'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="{k}"}} {n}'
              for k, n in enumerate(positions)]
    return "\n".join(lines) + "\n"


def llama(body: str, props: bytes = PROPS.encode(), **scenario: Any) -> Scenario:
    return Scenario(models=[{"id": "m", "owned_by": "llamacpp"}],
                    get={"/props": (200, "application/json", props), "/slots": (200, "application/json", b"[]"),
                         "/metrics": (200, "text/plain; version=0.0.4", body.encode())}, **scenario)


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def doctor(server: HostileServer, scenario: Scenario, home: Path, *args: str) -> Run:
    server.scenario = scenario
    return run_cli(["doctor", server.root, "--window", "1", "--json", *args], base_env(home), timeout=TIME_LIMIT)


def findings(run: Run) -> list[dict[str, Any]]:
    (one,) = json.loads(run.out)["servers"]
    return list(one["findings"])


@pytest.mark.parametrize(("body", "rule"), [
    (metrics(10, 20, 30, (20, 10)), "accepted ≤ drafted"),  # drafted < accepted
    (metrics(10, 30, 12, (5, 3, 1)), "Σ per-position = accepted"),  # 5 + 3 + 1 ≠ 12
])
def test_lying_counters_are_set_aside_and_nothing_is_built_on_them(server: HostileServer, tmp_path: Path,
                                                                   body: str, rule: str) -> None:
    run = doctor(server, llama(body), tmp_path, "--check", "--window", "3")
    assert not run.timed_out and run.returncode == 1, run.err  # --check: a problem
    found = findings(run)
    aside = [f for f in found if f["id"] == "set_aside"]
    assert aside and aside[0]["severity"] == "problem"
    assert len(aside) <= 2  # one line per broken rule, not one per poll
    assert server.root in aside[0]["text"] and rule in aside[0]["text"]
    assert not {f["id"] for f in found} & BUILT_ON_COUNTERS
    human = doctor(server, llama(body), tmp_path)
    assert human.returncode == 0  # without --check it only reports
    text = run_cli(["doctor", server.root, "--window", "1"], base_env(tmp_path), timeout=TIME_LIMIT)
    assert rule in text.out and text.returncode == 0
    assert_terminal_clean(text.stdout)


def test_a_props_of_a_million_keys_is_bounded(server: HostileServer, tmp_path: Path) -> None:
    keys = ",".join(f'"{k:x}":0' for k in range(1_000_000))
    props = ('{"build_info":"b1",' + keys + "}").encode()
    assert len(props) > 8 * 2**20  # beyond what specview reads of one answer: dropped, and said as such
    run = doctor(server, llama(metrics(10, 30, 12, (8, 3, 1)), props), tmp_path)
    assert not run.timed_out and run.returncode == 0, run.err
    large, found = findings(run)  # not recognised as llama-server: it cannot tell, and says why
    assert (found["id"], found["confidence"]["level"]) == ("unknown", "low")
    assert large["id"] == "props_large" and large["severity"] == "warn"
    assert f"{server.root}/props is over 8 MiB" in large["text"] and "dropped unread (not absent)" in large["text"]


def test_a_props_of_too_many_keys_is_set_aside(server: HostileServer, tmp_path: Path) -> None:
    keys = ",".join(f'"{k:x}":0' for k in range(20_000))
    props = ('{"build_info":"b1",' + keys + "}").encode()
    run = doctor(server, llama(metrics(10, 30, 12, (8, 3, 1)), props), tmp_path)
    assert run.returncode == 0, run.err
    aside = [f for f in findings(run) if f["id"] == "set_aside"]
    assert len(aside) == 1 and "/props" in aside[0]["text"] and "20001 keys" in aside[0]["text"]


def test_a_probe_that_never_answers_ends_at_its_deadline(server: HostileServer, tmp_path: Path) -> None:
    run = doctor(server, llama(metrics(10, 30, 12, (8, 3, 1)), stall=True), tmp_path, "--probe", "2",
                 "--request-timeout", "2")
    server.release.set()
    assert not run.timed_out and run.elapsed < 30, run.elapsed
    assert run.returncode == 0, run.err
    (failed,) = [f for f in findings(run) if f["id"] == "probe_failed"]
    assert failed["severity"] == "warn" and "2 of 2" in failed["text"]


def test_an_unreachable_server_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run = run_cli(["doctor", "http://127.0.0.1:9", "--window", "1"], base_env(tmp_path), timeout=TIME_LIMIT)
    assert run.returncode == 2 and len(run.err.strip().splitlines()) == 1, run.err


def prometheus_answer(result: list[dict[str, Any]]) -> bytes:
    return json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}).encode()


@pytest.mark.parametrize("answer", [
    (200, "text/html", b"<html>" + b"garbage " * 10_000),
    (200, "application/json", b'{"status": "success", "data": {"resultType": "matrix", "result": 7}}'),
    (200, "application/json", b"[" * 100_000),
])
def test_a_prometheus_that_answers_garbage_is_one_line_and_exit_2(server: HostileServer, tmp_path: Path,
                                                                 answer: tuple[int, str, bytes]) -> None:
    server.scenario = Scenario(get={"/api/v1/query": answer, "/api/v1/query_range": answer})
    run = run_cli(["doctor", "--prometheus", server.root, "--window", "2"], base_env(tmp_path), timeout=TIME_LIMIT)
    assert not run.timed_out and run.returncode == 2 and not run.out, run.err
    assert len(run.err.strip().splitlines()) == 1 and server.root in run.err, run.err


def test_a_counter_in_prometheus_that_is_not_a_count_builds_no_finding(server: HostileServer,
                                                                      tmp_path: Path) -> None:
    base = {"job": "j", "instance": "a:1"}
    now = 1.7e9
    series = [({**base, "specview_part": "up"}, 1.0), ({**base, "specview_part": "scraped"}, now),
              ({**base, "__name__": "llamacpp:spec_decode_num_drafts_total", "specview_part": "count"}, -5.0),
              ({**base, "__name__": "llamacpp:spec_decode_num_draft_tokens_total", "specview_part": "count"}, 9.0)]
    body = prometheus_answer([{"metric": labels, "value": [now, str(value)]} for labels, value in series])
    server.scenario = Scenario(get={"/api/v1/query": (200, "application/json", body)})
    run = run_cli(["doctor", "--prometheus", server.root, "--window", "2", "--json"], base_env(tmp_path),
                  timeout=TIME_LIMIT)
    assert not run.timed_out and run.returncode == 0, run.err
    (one,) = json.loads(run.out)["servers"]
    assert one["via"] == "prometheus" and one["url"] == "a:1"
    (found,) = one["findings"]  # no on/off, no rate: the one line saying why
    assert found["id"] == "stopped" and "drafts_total" in found["text"] and "-5" in found["text"]


def _answers_timings(handler: Any) -> None:
    """A completion answered at once, with llama-server's timings (48 tokens in 1 s, 30 of 40 drafts kept)."""
    body = json.dumps({"choices": [{"text": "x"}], "timings": {"predicted_n": 48, "predicted_ms": 1000.0,
                                                                "draft_n": 40, "draft_n_accepted": 30}})
    send_body(handler, 200, body.encode(), "application/json")


def test_an_off_server_that_never_answers_ends_at_the_deadline_and_gives_no_baseline(
        server: HostileServer, tmp_path: Path) -> None:
    plain_props = json.dumps({"build_info": "b1", "default_generation_settings": {"params": {}}}).encode()
    server.scenario = llama(metrics(10, 30, 12, (8, 3, 1)))
    server.wire["POST"] = _answers_timings
    try:
        with hostile_server() as off:
            off.scenario = Scenario(models=[{"id": "m", "owned_by": "llamacpp"}], stall=True, get={
                "/props": (200, "application/json", plain_props), "/slots": (200, "application/json", b"[]"),
                "/metrics": (200, "text/plain; version=0.0.4", b"llamacpp:tokens_predicted_total 10\n")})
            run = run_cli(["doctor", server.root, "--off", off.root, "--window", "1", "--probe", "2",
                           "--request-timeout", "2", "--json"], base_env(tmp_path), timeout=TIME_LIMIT)
            off.release.set()
    finally:
        del server.wire["POST"]
    assert not run.timed_out and run.elapsed < 40, run.elapsed
    assert run.returncode == 0, run.err
    found = {f["id"]: f for f in findings(run)}
    assert "pays_measured" not in found  # no baseline: nothing is measured against it
    assert off.root in found["stopped"]["text"] and "no baseline" in found["stopped"]["text"]


def test_a_vllm_verifying_with_fly_is_a_doctor_finding(server: HostileServer, tmp_path: Path) -> None:
    """What `watch` flags from vLLM's dev-mode /server_info (rejection_sample_method "fly", lossy),
    doctor says as a finding with the flag that makes it lossless."""
    config = {"method": "ngram", "num_speculative_tokens": 3, "rejection_sample_method": "fly"}
    info = json.dumps({"vllm_config": {"speculative_config": config}, "vllm_env": {}}).encode()
    counters = ("vllm:generation_tokens_total 40\nvllm:num_requests_running 1\n"
                "vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total 30\n"
                "vllm:spec_decode_num_accepted_tokens_total 20\n")
    server.scenario = Scenario(models=[{"id": "m", "owned_by": "vllm"}], get={
        "/version": (200, "application/json", b'{"version": "0.33.0"}'),
        "/metrics": (200, "text/plain; version=0.0.4", counters.encode()),
        "/server_info": (200, "application/json", info)})
    run = run_cli(["doctor", server.root, "--window", "1", "--json"], base_env(tmp_path), timeout=TIME_LIMIT)
    assert run.returncode == 0, run.err
    (fly,) = [f for f in findings(run) if f["id"].startswith("lossy")]
    assert (fly["id"], fly["severity"], fly["confidence"]["level"]) == ("lossy_fly", "warn", "high")
    assert "FLy" in fly["text"] and "rejection_sample_method" in fly["flag"]
    assert fly["evidence"][0]["value"] == "fly"
