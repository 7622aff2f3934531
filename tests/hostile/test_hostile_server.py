"""A hostile OpenAI-compatible server against the command line (`bench --json`, the model check).

Every case runs specview in a child process under an address-space limit and a time limit,
and asserts one clean line on stderr (exit 2) or valid JSON on stdout (exit 0), no traceback,
no escape byte from the server on the terminal, and no secret in any file the run wrote.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from tests.support.hostile_checks import (
    HOSTILE,
    MARKUP,
    OSC52,
    SECRET,
    assert_no_secret,
    assert_terminal_clean,
    json_lines,
    one_error_line,
)
from tests.support.hostile_server import HostileServer, Scenario, chat_chunk, hostile_server, llama_chunk
from tests.support.limited_run import Run, base_env, run_cli

LLAMA_PROPS = json.dumps({"build_info": "b1",
                          "default_generation_settings": {"params": {"speculative.types": "draft"}}})
VLLM_METRICS = "".join(
    f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine="0",position="{k}"}} 0.0\n' for k in range(3)
) + 'vllm:spec_decode_num_drafts_total{engine="0"} 0.0\n'


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def llama(events: list[object], get: dict[str, object] | None = None, **more: object) -> Scenario:
    """A llama-server (owned_by llamacpp, /props with a build, and `get`) streaming `events`."""
    return Scenario(models=[{"id": "m", "owned_by": "llamacpp"}],
                    get={"/props": (200, "application/json", LLAMA_PROPS.encode()), **(get or {})},
                    events=list(events), **more)  # type: ignore[arg-type]


def vllm(events: list[object], metrics: str = VLLM_METRICS) -> Scenario:
    """A vLLM (owned_by vllm, /version, /metrics) streaming `events`."""
    return Scenario(models=[{"id": "m", "owned_by": "vllm"}],
                    get={"/version": (200, "application/json", b'{"version": "0.0-hostile"}'),
                         "/metrics": (200, "text/plain; version=0.0.4", metrics.encode())},
                    events=list(events))  # type: ignore[arg-type]


def sglang(events: list[object]) -> Scenario:
    """An SGLang (owned_by sglang, /get_server_info naming its algorithm) streaming `events`."""
    info = {"speculative_algorithm": "EAGLE", "speculative_num_draft_tokens": 4, "version": "0-hostile"}
    return Scenario(models=[{"id": "m", "owned_by": "sglang"}],
                    get={"/get_server_info": (200, "application/json", json.dumps(info).encode())},
                    events=list(events))  # type: ignore[arg-type]


def vllm_stats(**stats: object) -> dict[str, object]:
    """vLLM's final usage chunk with `metrics.speculative_decoding`."""
    return {"choices": [], "usage": {"completion_tokens": 1}, "metrics": {"speculative_decoding": stats}}


def bench(server: HostileServer, scenario: Scenario, home: Path, *args: str, key: str | None = None) -> Run:
    server.scenario = scenario
    env = base_env(home, {"HOSTILE_KEY": key} if key else None)
    extra = ("--api-key-env", "HOSTILE_KEY") if key else ()
    return run_cli(["bench", "--url", server.url, "--max-tokens", "16", *extra, *args, "--json"], env)


def big_line(size: int) -> Iterable[bytes]:
    """One SSE data line of `size` bytes that never ends."""
    yield b'data: {"choices": [{"delta": {"content": "'
    for _ in range(size // 65536):
        yield b"x" * 65536


# name -> (scenario, what the one error line must say)
FAILURES: dict[str, tuple[Scenario, str]] = {
    "stream error with markup and escapes": (
        Scenario(events=[chat_chunk("a"), {"error": {"message": MARKUP + OSC52}}]),
        "error mid-stream: [/][link=https://evil.example]click[/link][@click=app.quit]x[/]␛]52"),
    "llama-server draft_n jumps to ten million": (
        llama([llama_chunk("a", 1, 1.0), llama_chunk("b", 2, 2.0, draft_n=10_000_000, accepted=1)]),
        "timings.draft_n jumped from 0 to 10000000"),
    "llama-server predicted_n jumps to tens of millions": (
        llama([llama_chunk("a", 1, 1.0), llama_chunk("b", 30_000_000, 2.0)]),
        "timings.predicted_n jumped from 1 to 30000000"),
    "llama-server accepted more than drafted": (
        llama([llama_chunk("a", 1, 1.0), llama_chunk("b", 2, 2.0, draft_n=2, accepted=5)]),
        "draft_n_accepted (5) is larger than timings.draft_n (2)"),
    "llama-server counter as a string": (
        llama([chat_chunk("a", timings={"predicted_n": "many", "predicted_ms": 1.0})]),
        "timings.predicted_n is 'many'"),
    "llama-server NaN milliseconds": (
        llama([b'data: {"choices": [{"delta": {"content": "a"}}], "timings": {"predicted_n": 1, "predicted_ms": NaN}}'
               b"\n\n"]),
        "NaN is not a JSON number"),
    "vLLM usage of 2e7": (
        vllm([chat_chunk("a", usage={"completion_tokens": 1}),
              chat_chunk("b", usage={"completion_tokens": 20_000_000})]),
        "usage.completion_tokens jumped from 1 to 20000000"),
    "vLLM per_step_accepted of strings": (
        vllm([chat_chunk("a", usage={"completion_tokens": 1}),
              {"choices": [], "metrics": {"speculative_decoding": {"per_step_accepted": ["abc"]}}}]),
        "per_step_accepted[0] must be an integer, got 'abc'"),
    "vLLM per_step_drafted shorter than per_step_accepted": (
        vllm([chat_chunk("a", usage={"completion_tokens": 1}),
              vllm_stats(per_step_accepted=[1, 2], per_step_drafted=[3])]),
        "per_step_drafted has 1 entries, per_step_accepted 2"),
    "vLLM a step accepted more than it drafted": (
        vllm([chat_chunk("a", usage={"completion_tokens": 1}),
              vllm_stats(per_step_accepted=[3], per_step_drafted=[1])]),
        "per_step_accepted[0] (3) is larger than per_step_drafted[0] (1)"),
    "SGLang sglext histogram of 2000 entries": (
        sglang([chat_chunk("a", usage={"completion_tokens": 1}),
                {"choices": [], "sglext": {"spec_tokens_details": {
                    "spec_verify_ct": 1, "spec_correct_drafts_histogram": [1] * 2000}}}]),
        "sglext.spec_tokens_details.spec_correct_drafts_histogram has 2000 items, at most 1025"),
    "SGLang sglext verify count as a string": (
        sglang([chat_chunk("a", usage={"completion_tokens": 1}),
                {"choices": [], "sglext": {"spec_tokens_details": {"spec_verify_ct": "x"}}}]),
        "sglext.spec_tokens_details.spec_verify_ct is 'x'"),
    "SGLang sglext accepted more than proposed": (
        sglang([chat_chunk("a", usage={"completion_tokens": 1}),
                {"choices": [], "sglext": {"spec_tokens_details": {
                    "spec_verify_ct": 1, "spec_num_correct_drafts": 99, "spec_num_proposed_drafts": 3}}}]),
        "sglext.spec_tokens_details accepted 99 of 3 drafted tokens"),
    "SGLang sglext histogram with more accepting steps than steps": (
        sglang([chat_chunk("a", usage={"completion_tokens": 9}),
                {"choices": [], "sglext": {"spec_tokens_details": {
                    "spec_verify_ct": 1, "spec_num_correct_drafts": 5, "spec_num_proposed_drafts": 3000,
                    "spec_correct_drafts_histogram": [0, 5]}}}]),
        "per_position[0] (5) is above the 1 verify steps"),
    "vLLM request totals with more accepted than drafted": (
        vllm([chat_chunk("a", usage={"completion_tokens": 1}),
              vllm_stats(num_spec_steps=1, num_draft_tokens=2, num_accepted_draft_tokens=9)]),
        "speculative_decoding accepted 9 of 2 drafted tokens"),
    "llama-server /slots of 5000 slots": (
        llama([], get={"/slots": (200, "application/json", json.dumps([{}] * 5000).encode())}),
        "/slots has 5000 items, at most 4096"),
    "vLLM token_ids of a million": (
        vllm([{"choices": [{"index": 0, "delta": {"content": "a"}, "token_ids": list(range(100_000))}]}]),
        "token_ids has 100000 items, at most 4096"),
    "/metrics position thirty million": (
        vllm([], metrics='vllm:spec_decode_num_accepted_tokens_per_pos_total{position="30000000"} 1.0\n'),
        "position '30000000', expected 0..1024"),
    "/metrics NaN": (
        vllm([], metrics="vllm:spec_decode_num_drafts_total NaN\n"),
        "vllm:spec_decode_num_drafts_total is nan"),
    "/metrics +Inf": (
        vllm([], metrics='vllm:spec_decode_num_accepted_tokens_total{engine="0"} +Inf\n'),
        "is inf, expected a count"),
    "an event line that never ends": (
        Scenario(events=[lambda: big_line(20 * 2**20)], done=False),
        "a line is longer than 8 MiB"),
    "deeply nested JSON in an event": (
        Scenario(events=[b"data: " + b"[" * 200_000 + b"\n\n"]), "nested too deeply"),
    "a 5000-digit integer in an event": (
        Scenario(events=[b'data: {"choices": [], "usage": {"completion_tokens": ' + b"9" * 5000 + b"}}\n\n"]),
        "not valid JSON we accept"),
    "tokens as an object": (
        vllm([{"choices": [{"index": 0, "delta": {"content": "a"}, "token_ids": {"a": 1}}],
               "usage": {"completion_tokens": "lots"}}]),
        "usage.completion_tokens is 'lots'"),
    "a model list of 20 MB": (
        Scenario(models=[{"id": "m" * 1000, "owned_by": "x" * 1000} for _ in range(10_000)]),
        "answered with more than 8 MiB while listing models"),
    "an answer that is not an event stream": (
        Scenario(content_type="text/html\x1b]0;x\x07"), "did not answer with an event stream"),
    "model ids that are not strings": (
        Scenario(models=[{"id": {"nested": 1}}, {"id": 5}, {"owned_by": "x"}]), "lists no models"),
}


@pytest.mark.parametrize("name", list(FAILURES))
def test_a_hostile_server_ends_in_one_clean_line(server: HostileServer, tmp_path: Path, name: str) -> None:
    scenario, expected = FAILURES[name]
    run = bench(server, scenario, tmp_path, key=SECRET)
    assert not run.timed_out, f"{name}: still running after {run.elapsed:.0f} s"
    line = one_error_line(run.err)
    assert run.returncode == 2, run.err
    assert expected in line, line
    assert_terminal_clean(run.stdout)
    assert_no_secret(tmp_path)


def test_hostile_model_ids_are_listed_visibly_never_raw(server: HostileServer, tmp_path: Path) -> None:
    server.scenario = Scenario(models=[{"id": HOSTILE + f"m{k}"} for k in range(20)])
    run = run_cli(["bench", "--url", server.url, "--model", "nope", "--json"], base_env(tmp_path))
    line = one_error_line(run.err)
    assert run.returncode == 2
    assert "does not know model 'nope'" in line and "and 12 more" in line
    assert "\\x1b]52;c;SE9TVElMRQ==\\x07" in line and "x[/]" in line  # quoted, escapes spelled out


def test_a_hostile_model_id_and_tokens_stay_exact_in_json(server: HostileServer, tmp_path: Path) -> None:
    """--json keeps the server's text exactly (JSON escapes), yet no raw escape reaches the terminal."""
    tokens = [HOSTILE, "\ud800", "x" * 300_000, "é"]
    server.scenario = Scenario(models=[{"id": HOSTILE}], events=[chat_chunk(t) for t in tokens])
    record = tmp_path / "run.jsonl"
    run = run_cli(["bench", "--url", server.url, "--max-tokens", "16", "--record", str(record), "--json"],
                  base_env(tmp_path))
    assert run.returncode == 0, run.err
    (stats,) = json_lines(run.stdout)
    assert stats["model"] == HOSTILE and stats["text"] == "".join(tokens)
    assert_terminal_clean(record.read_bytes())  # a recording is safe to `cat`
    rounds = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()[1:]]
    assert [r["tokens"][0]["text"] for r in rounds] == tokens  # the full text is kept


@pytest.mark.parametrize("where", ["model id", "token", "token split across chunks", "401 body"])
def test_a_reflected_key_is_masked_everywhere(server: HostileServer, tmp_path: Path, where: str) -> None:
    half = len(SECRET) // 2
    record = tmp_path / "run.jsonl"
    scenario = {
        "model id": Scenario(models=[{"id": "model-@KEY@"}], events=[chat_chunk("ok")]),
        "token": Scenario(events=[chat_chunk("your key is @KEY@, bye")]),
        "token split across chunks": Scenario(events=[chat_chunk("key: " + SECRET[:3]), chat_chunk(SECRET[3:half]),
                                                      chat_chunk(SECRET[half:] + " done")]),
        "401 body": Scenario(post_status=401, post_body=("x" * 180 + " Bearer @KEY@ " + "y" * 500).encode()),
    }[where]
    run = bench(server, scenario, tmp_path, "--record", str(record), key=SECRET)
    if where == "401 body":
        line = one_error_line(run.err)
        assert "refused the API key (401" in line and "Bearer ***" in line
    else:
        assert run.returncode == 0, run.err
        (stats,) = json_lines(run.stdout)
        assert "***" in json.dumps(stats)
    assert SECRET.encode() not in run.stdout + run.stderr and SECRET[:8].encode() not in run.stderr
    assert_no_secret(tmp_path)


@pytest.mark.parametrize("url", ["http://[::1:1/v1", "ftp://host/v1", "http:///v1", "http://host:99999/v1"])
def test_a_url_that_cannot_be_used(tmp_path: Path, url: str) -> None:
    run = run_cli(["bench", "--url", url, "--json"], base_env(tmp_path))
    line = one_error_line(run.err)
    assert run.returncode == 2 and "--url" in line, line


def test_credentials_in_the_url_are_never_shown(server: HostileServer, tmp_path: Path) -> None:
    secret_url = server.url.replace("http://", f"http://user:{SECRET}@") + f"?token={SECRET}x"
    server.scenario = Scenario(post_status=500, post_body=b'{"error": {"message": "boom ' + SECRET.encode() + b'"}}')
    run = run_cli(["bench", "--url", secret_url, "--json"], base_env(tmp_path))
    line = one_error_line(run.err)
    assert "HTTP 500: boom ***" in line
    assert any("?token=" in request for request in server.requests)  # the query still travels
    refused = run_cli(["bench", "--url", f"http://user:{SECRET}@127.0.0.1:9/v1?token={SECRET}", "--json"],
                      base_env(tmp_path))
    assert "cannot connect to http://127.0.0.1:9" in one_error_line(refused.err)
    assert_no_secret(tmp_path)


LLAMA_METRICS = "llamacpp:spec_decode_num_drafts_total 0\nllamacpp:tokens_predicted_total 0\n"


def watched(metrics: str, slots: object = ()) -> Scenario:
    """A llama-server with `metrics` and `slots` for `specview watch`."""
    return llama([], get={"/metrics": (200, "text/plain; version=0.0.4", metrics.encode()),
                          "/slots": (200, "application/json", json.dumps(slots).encode())})


# name -> (scenario, what the one error line of `specview watch` must say)
WATCH_FAILURES: dict[str, tuple[Scenario, str]] = {
    "generated tokens below zero": (
        watched("llamacpp:spec_decode_num_drafts_total 0\nllamacpp:tokens_predicted_total -5\n"),
        "llamacpp:tokens_predicted_total is -5.0, expected a count"),
    "requests running NaN": (
        watched(LLAMA_METRICS + "llamacpp:requests_processing NaN\n"),
        "llamacpp:requests_processing is nan, expected a count"),
    "a running slot that decoded 'lots'": (
        watched(LLAMA_METRICS, [{"is_processing": True, "next_token": [{"n_decoded": "lots"}]}]),
        "/slots[0].next_token[0].n_decoded is 'lots'"),
    "a per-position series past the last position": (
        watched(LLAMA_METRICS + 'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="5000"} 1\n'),
        "position '5000', expected 0..1024"),
}


@pytest.mark.parametrize("name", list(WATCH_FAILURES))
def test_a_hostile_server_being_watched_ends_in_one_clean_line(server: HostileServer, tmp_path: Path,
                                                               name: str) -> None:
    scenario, expected = WATCH_FAILURES[name]
    server.scenario = scenario
    run = run_cli(["watch", "--url", server.root, "--count", "2", "--interval", "0.05", "--json"],
                  base_env(tmp_path))
    assert not run.timed_out, f"{name}: still running after {run.elapsed:.0f} s"
    line = one_error_line(run.err)
    assert run.returncode == 2, run.err
    assert expected in line and server.root in line, line
    assert_terminal_clean(run.stdout)
