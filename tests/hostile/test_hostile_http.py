"""A server that misbehaves below the JSON — compression bombs, trickles, endless `100 Continue`,
SSE comments forever, silence, redirects, broken framing — against the command line.

Every case runs specview in a child under an address-space limit (768 MiB: a bomb here inflates
to 1 GiB) and a time limit, and asserts one clean line naming the server (exit 2), within a
bound of time, with no secret in any output or file.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

import tests.support.hostile_wire as wire
from tests.support.hostile_checks import SECRET, assert_no_secret, assert_terminal_clean, one_error_line
from tests.support.hostile_server import HostileServer, Scenario, chat_chunk, hostile_server
from tests.support.limited_run import Run, base_env, run_cli

GIB = 2**30
JSON = {"Content-Type": "application/json"}
LLAMA_METRICS = b"llamacpp:spec_decode_num_drafts_total 0\nllamacpp:tokens_predicted_total 0\n"
VLLM_METRICS = b'vllm:spec_decode_num_drafts_total{engine="0"} 0.0\n'
BOUNDED_S = 30.0  # every case ends well within this (the deadlines below are 2 s)
STACKS = [("gzip", "gzip"), ("deflate", "gzip")]


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def metrics(body: bytes) -> wire.Wire:
    return wire.answer("200 OK", {"Content-Type": "text/plain; version=0.0.4"}, body)


def llama_watched() -> Scenario:
    """A llama-server for `specview watch` (its /metrics comes from `server.wire`)."""
    props = {"build_info": "b1", "default_generation_settings": {"params": {"speculative.types": "draft"}}}
    return Scenario(models=[{"id": "m", "owned_by": "llamacpp"}],
                    get={"/props": (200, "application/json", json.dumps(props).encode()),
                         "/slots": (200, "application/json", b"[]")})


def until(condition: Callable[[], bool]) -> Callable[[], Iterable[bytes]]:
    """A stream step that sends nothing until `condition` holds (checked every 20 ms, 30 s at most)."""
    def wait() -> Iterable[bytes]:
        pause = threading.Event()
        for _ in range(1500):
            if condition():
                break
            pause.wait(0.02)
        return []
    return wait


def cli(server: HostileServer, home: Path, *args: str) -> Run:
    """specview with the hostile key in its environment (a reflected or leaked key shows)."""
    env = base_env(home, {"HOSTILE_KEY": SECRET})
    return run_cli([*args, "--api-key-env", "HOSTILE_KEY"], env, timeout=60.0)


def bench(server: HostileServer, home: Path, *extra: str) -> Run:
    return cli(server, home, "bench", "--url", server.url, "--max-tokens", "16", *extra, "--json")


def watch(server: HostileServer, home: Path, *extra: str) -> Run:
    return cli(server, home, "watch", "--url", server.root, "--count", "3", "--interval", "0.05", *extra, "--json")


def assert_one_clean_line(run: Run, server: HostileServer, home: Path, *expected: str) -> str:
    assert not run.timed_out and run.elapsed < BOUNDED_S, f"still running after {run.elapsed:.0f} s"
    line = one_error_line(run.err)
    assert run.returncode == 2, run.err
    for text in expected:
        assert text in line, line
    assert server.root in line, line  # the message names the server
    assert_terminal_clean(run.stdout)
    assert SECRET[:8].encode() not in run.stdout + run.stderr
    assert_no_secret(home)
    return line


def stacked_text(layers: tuple[str, ...]) -> str:
    return f"answered with stacked compression (Content-Encoding: {', '.join(layers)})"


# -- compression -------------------------------------------------------------------------------
@pytest.mark.parametrize("layers", STACKS, ids=",".join)
def test_stacked_compression_on_the_model_list(server: HostileServer, tmp_path: Path,
                                               layers: tuple[str, ...]) -> None:
    server.wire = {"/v1/models": wire.compressed(layers, GIB)}
    line = assert_one_clean_line(bench(server, tmp_path), server, tmp_path, stacked_text(layers))
    assert "while listing models (GET /v1/models); specview decodes at most one layer" in line


@pytest.mark.parametrize("layers", STACKS, ids=",".join)
def test_stacked_compression_on_the_event_stream(server: HostileServer, tmp_path: Path,
                                                 layers: tuple[str, ...]) -> None:
    server.wire = {"POST": wire.compressed(layers, GIB, "text/event-stream")}
    assert_one_clean_line(bench(server, tmp_path), server, tmp_path,
                          stacked_text(layers) + " while streaming the completion")


@pytest.mark.parametrize("layers", STACKS, ids=",".join)
def test_stacked_compression_on_an_error_body(server: HostileServer, tmp_path: Path,
                                              layers: tuple[str, ...]) -> None:
    server.wire = {"POST": wire.compressed(layers, GIB, status="500 Internal Server Error")}
    assert_one_clean_line(bench(server, tmp_path), server, tmp_path, "(HTTP 500: its error body came with stacked "
                          f"compression (Content-Encoding: {', '.join(layers)}), not decoded)")


@pytest.mark.parametrize("layers", STACKS, ids=",".join)
def test_stacked_compression_on_metrics_being_watched(server: HostileServer, tmp_path: Path,
                                                      layers: tuple[str, ...]) -> None:
    server.scenario = llama_watched()
    # the first /metrics (the check) and detection's are plain: the bomb comes while watching
    server.wire = {"/metrics": wire.after(2, metrics(LLAMA_METRICS), wire.compressed(layers, GIB, "text/plain"))}
    assert_one_clean_line(watch(server, tmp_path), server, tmp_path, stacked_text(layers) + " while watching /metrics")


@pytest.mark.parametrize("layers", STACKS, ids=",".join)
def test_stacked_compression_on_the_vllm_live_poll(server: HostileServer, tmp_path: Path,
                                                   layers: tuple[str, ...]) -> None:
    """vLLM's /metrics is polled while the stream runs: the third scrape (the first poll) is a bomb,
    and the stream goes on only once that poll has been asked."""
    polled = until(lambda: server.requests.count("GET /metrics") >= 3)
    server.scenario = Scenario(models=[{"id": "m", "owned_by": "vllm"}],
                               get={"/version": (200, "application/json", b'{"version": "0.0-hostile"}')},
                               events=[chat_chunk("a", usage={"completion_tokens": 1}), polled,
                                       chat_chunk("b", usage={"completion_tokens": 2})])
    server.wire = {"/metrics": wire.after(2, metrics(VLLM_METRICS), wire.compressed(layers, GIB, "text/plain"))}
    assert_one_clean_line(bench(server, tmp_path), server, tmp_path, stacked_text(layers) + " while asking /metrics")
    assert server.requests.index("POST /v1/chat/completions") < len(server.requests) - 1  # polled mid-stream


def test_one_layer_past_the_bound_on_the_model_list(server: HostileServer, tmp_path: Path) -> None:
    server.wire = {"/v1/models": wire.compressed(("gzip",), GIB)}
    assert_one_clean_line(bench(server, tmp_path), server, tmp_path,
                          "answered with more than 8 MiB while listing models")


def test_one_layer_past_the_bound_on_the_event_stream(server: HostileServer, tmp_path: Path) -> None:
    server.wire = {"POST": wire.compressed(("deflate",), GIB, "text/event-stream")}
    assert_one_clean_line(bench(server, tmp_path), server, tmp_path, "sent a malformed stream: a line is longer "
                          "than 8 MiB")


def test_an_encoding_zlib_does_not_speak(server: HostileServer, tmp_path: Path) -> None:
    server.wire = {"/v1/models": wire.answer("200 OK", {**JSON, "Content-Encoding": "br"}, b"\x8b\x02\x80")}
    assert_one_clean_line(bench(server, tmp_path), server, tmp_path,
                          "answered with an encoding specview does not decode (Content-Encoding: br)")


# -- time --------------------------------------------------------------------------------------
MODELS_LATE = "did not finish answering within 2 s while listing models (GET /v1/models)"
NOT_STARTED = "did not start answering within 2 s while streaming the completion (read timeout"
NO_EVENT = "sent no event for 2 s while streaming the completion (read timeout: the stream stalled; "

# name -> (what server.wire serves, what the one line must say); 2 s deadlines (--request-timeout, --read-timeout)
SLOW: dict[str, tuple[dict[str, wire.Wire], str]] = {
    "model list trickling a byte a second": (
        {"/v1/models": wire.trickle("200 OK", JSON, b'{"object": "list", "data": [')}, MODELS_LATE),
    "model list behind endless 100 Continue": ({"/v1/models": wire.continues_forever()}, MODELS_LATE),
    "model list never answered": ({"/v1/models": wire.silent}, MODELS_LATE),
    "stream behind endless 100 Continue": ({"POST": wire.continues_forever()}, NOT_STARTED),
    "stream never answered": ({"POST": wire.silent}, NOT_STARTED),
    "stream of SSE comments forever": ({"POST": wire.comments_forever()}, NO_EVENT + "{n} bytes of comments"),
    "stream trickling a byte a second": ({"POST": wire.sse_trickle(b'data: {"choices": [', every=1.0)},
                                         NO_EVENT + "{n} bytes of comments, keep-alives or a trickle came"),
}


@pytest.mark.parametrize("name", list(SLOW))
def test_a_server_that_makes_no_progress_is_cut_at_its_deadline(server: HostileServer, tmp_path: Path,
                                                                 name: str) -> None:
    server.wire, expected = SLOW[name]
    run = bench(server, tmp_path, "--request-timeout", "2", "--read-timeout", "2")
    head, _, tail = expected.partition("{n}")
    line = assert_one_clean_line(run, server, tmp_path, head, tail)
    if tail:  # the bytes that came and were no progress are counted
        assert int(line.split(head, 1)[1].split(" ", 1)[0]) > 0, line


def test_the_config_sets_the_request_timeout(server: HostileServer, tmp_path: Path) -> None:
    config = tmp_path / "config" / "specview" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("request_timeout = 2\n")
    server.wire = {"/v1/models": wire.continues_forever()}
    assert_one_clean_line(bench(server, tmp_path), server, tmp_path, MODELS_LATE, "--request-timeout sets the limit")


def test_watch_ends_when_a_scrape_trickles_past_its_deadline(server: HostileServer, tmp_path: Path) -> None:
    server.scenario = llama_watched()
    trickling = wire.trickle("200 OK", {"Content-Type": "text/plain"}, b"llamacpp:spec_decode_num_drafts_total")
    server.wire = {"/metrics": wire.after(2, metrics(LLAMA_METRICS), trickling)}
    assert_one_clean_line(watch(server, tmp_path, "--request-timeout", "2"), server, tmp_path,
                          "did not finish answering within 2 s while watching /metrics")


# -- framing and redirects ---------------------------------------------------------------------
def test_a_redirect_is_named_and_not_followed(server: HostileServer, tmp_path: Path) -> None:
    target = f"http://user:{SECRET}@127.0.0.1:{server.server_address[1]}/elsewhere/v1/models?token={SECRET}"
    server.wire = {"/v1/models": wire.answer("307 Temporary Redirect", {"Location": target}, b"")}
    assert_one_clean_line(bench(server, tmp_path), server, tmp_path,
                          f"answered with a redirect (HTTP 307) to '{server.root}/elsewhere/v1/models' while "
                          "listing models (GET /v1/models); specview does not follow redirects")
    assert not any("elsewhere" in request for request in server.requests)


def test_a_redirect_of_the_stream(server: HostileServer, tmp_path: Path) -> None:
    server.wire = {"POST": wire.answer("302 Found", {"Location": "/login?next=%1b]0;x%07"}, b"")}
    assert_one_clean_line(bench(server, tmp_path), server, tmp_path,
                          f"redirect (HTTP 302) to '{server.root}/login' while streaming the completion")


def test_broken_chunked_framing_is_named(server: HostileServer, tmp_path: Path) -> None:
    server.wire = {"POST": wire.broken_chunks}
    line = assert_one_clean_line(bench(server, tmp_path), server, tmp_path, "broke the HTTP framing of its answer "
                                 "while streaming the completion (bad chunked encoding: illegal chunk header")
    assert "closed the connection" not in line


def test_a_body_cut_short_is_named(server: HostileServer, tmp_path: Path) -> None:
    server.wire = {"/v1/models": wire.cut_short("200 OK", JSON, b'{"data": [', 100)}
    assert_one_clean_line(bench(server, tmp_path), server, tmp_path, "cut its answer short while listing models "
                          "(GET /v1/models): received 10 bytes, expected 100")
