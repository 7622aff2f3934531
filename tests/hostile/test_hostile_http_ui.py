"""`q` against a server that does not answer, in a real pseudo-terminal: before the UI (the model
list, watch's first scrape), before a stream's headers, mid-stream, in four compare panes, and
in `watch` once its scrape is late ("stalled since …").

`Run.after_last_key` is measured from the key written to the pty to the process's exit (waitpid):
it counts the app's handling of the key, stopping the runs (sockets shut down, never a timeout
waited out), Textual's teardown and the process ending. Each case asserts it is under 0.5 s, and
an exit code of 0 (130 for Ctrl-C), under the address-space and time limits.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import tests.support.hostile_wire as wire
from tests.support.hostile_checks import assert_terminal_clean
from tests.support.hostile_server import HostileServer, Scenario, chat_chunk, hostile_server
from tests.support.limited_run import Run, base_env, run_tty

QUIT_S = 0.5
# the key comes this long after its cue: the phase under test, not the app still laying out its
# first frames (which takes a second or more on a loaded machine, a server or not)
SETTLE_S = 2.0
LLAMA_METRICS = b"llamacpp:spec_decode_num_drafts_total 0\nllamacpp:tokens_predicted_total 0\n"


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def assert_quit_at_once(run: Run, code: int = 0) -> None:
    assert not run.timed_out, f"still running after {run.elapsed:.0f} s"
    assert run.returncode == code, run.stdout[-2000:]
    assert_terminal_clean(run.stdout)
    assert run.after_last_key is not None and run.after_last_key < QUIT_S, f"exit took {run.after_last_key:.2f} s"


@pytest.mark.parametrize(("key", "code"), [(b"q", 0), (b"\x03", 130)], ids=["q", "ctrl-c"])
def test_the_wait_for_the_model_list_is_said_and_ends_at_a_key(server: HostileServer, tmp_path: Path,
                                                               key: bytes, code: int) -> None:
    server.wire = {"/v1/models": wire.silent}
    cue = f"waiting for {server.root}: listing models (GET /v1/models)"
    run = run_tty(["--url", server.url], base_env(tmp_path), keys=[(cue, key)])
    assert_quit_at_once(run, code)
    assert run.saw("q or Ctrl-C stops")
    assert run.stdout.endswith(b"\r\x1b[K")  # the line is erased: the shell's prompt starts clean


def test_the_wait_for_watchs_first_scrape_ends_at_q(server: HostileServer, tmp_path: Path) -> None:
    server.wire = {"/metrics": wire.silent}
    run = run_tty(["watch", "--url", server.root], base_env(tmp_path),
                  keys=[(f"waiting for {server.root}: reading /metrics", b"q")])
    assert_quit_at_once(run)


def test_q_before_the_streams_headers(server: HostileServer, tmp_path: Path) -> None:
    server.wire = {"POST": wire.silent}
    run = run_tty(["--url", server.url, "--read-timeout", "600"], base_env(tmp_path), keys=[("▶ running", b"q")],
                  settle=SETTLE_S)
    assert_quit_at_once(run)
    assert "POST /v1/chat/completions" in server.requests  # it was waiting for the headers


def test_q_mid_stream(server: HostileServer, tmp_path: Path) -> None:
    server.release.clear()
    server.scenario = Scenario(events=[chat_chunk("waiting")], stall=True)
    run = run_tty(["--url", server.url, "--read-timeout", "600"], base_env(tmp_path), keys=[("waiting", b"q")],
                  settle=SETTLE_S)
    assert_quit_at_once(run)


def test_q_in_four_compare_panes_before_their_headers(server: HostileServer, tmp_path: Path) -> None:
    server.wire = {"POST": wire.silent}
    panes = [f"url:{server.url}#m"] * 4
    run = run_tty(["compare", *panes, "--read-timeout", "600"], base_env(tmp_path), keys=[("▶ running", b"q")],
                  settle=SETTLE_S)
    assert_quit_at_once(run)
    assert server.requests.count("POST /v1/chat/completions") == 4


def test_watch_says_stalled_when_a_scrape_is_late_and_q_ends_it(server: HostileServer, tmp_path: Path) -> None:
    props = {"build_info": "b1", "default_generation_settings": {"params": {"speculative.types": "draft"}}}
    server.scenario = Scenario(models=[{"id": "m", "owned_by": "llamacpp"}],
                               get={"/props": (200, "application/json", json.dumps(props).encode()),
                                    "/slots": (200, "application/json", b"[]")})
    plain = wire.answer("200 OK", {"Content-Type": "text/plain"}, LLAMA_METRICS)
    trickling = wire.trickle("200 OK", {"Content-Type": "text/plain"}, b"llamacpp:spec_decode_num_drafts_total")
    server.wire = {"/metrics": wire.after(3, plain, trickling)}  # the check, detection, one poll; then a trickle
    run = run_tty(["watch", "--url", server.root, "--interval", "0.5"], base_env(tmp_path),
                  keys=[("stalled since", b"q")], settle=SETTLE_S)
    assert_quit_at_once(run)
    assert run.saw("(no answer to /metrics for ")
