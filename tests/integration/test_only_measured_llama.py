"""Only what was measured (issue 25 item 2) against one real llama-server (Gemma 3 270M, n-gram
drafts of up to 8 tokens on a repetitive prompt, so drafts vary in length under 8 position series):

- `specview watch --json` live: α never below the yield on any poll, and each poll says what α
  rests on (the position series, or the counts where the series do not describe every draft);
- `bench --url … --gamma 3`: the server drafts its own length, reported as the server's γ with
  the one asked beside it, in the JSON and in the text.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import IO, Any

import httpx
import pytest

from tests.support.llama_server import RunningServer, llama_server, server_binary
from tests.support.processes import stop

pytestmark = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")

NGRAM8 = ("--spec-type", "ngram-simple", "--spec-ngram-simple-size-n", "2", "--spec-ngram-simple-size-m", "8")
PROMPT = "the cat sat on the mat. " * 5
ENV = {**os.environ, "NO_COLOR": "1"}
WAIT_S = 240.0  # a shared 2-core machine: Gemma decodes at a few tokens/s when others are busy


@pytest.fixture(scope="module")
def ngram_server() -> Iterator[RunningServer]:
    with llama_server(NGRAM8) as server:
        yield server


def _lines(stream: IO[str], into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


def _complete(server: RunningServer, errors: list[str]) -> None:
    body = {"prompt": PROMPT, "max_tokens": 40, "temperature": 0.0}
    try:
        httpx.post(f"{server.url}/completions", json=body, timeout=WAIT_S).raise_for_status()
    except httpx.HTTPError as exc:
        errors.append(repr(exc))


def test_watch_never_shows_alpha_below_the_yield_and_says_its_basis(ngram_server: RunningServer) -> None:
    watch = subprocess.Popen([sys.executable, "-m", "specview", "watch", "--url", ngram_server.root, "--json",
                              "-d", "0.3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                             stdin=subprocess.DEVNULL)
    assert watch.stdout is not None
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_lines, args=(watch.stdout, lines), daemon=True).start()
    polls: list[dict[str, Any]] = []
    try:
        first = lines.get(timeout=WAIT_S)  # the watcher polls: now the requests go
        assert first is not None, watch.stderr.read() if watch.stderr else ""
        polls.append(json.loads(first))
        errors: list[str] = []
        client = threading.Thread(target=_complete, args=(ngram_server, errors))
        client.start()
        client.join(WAIT_S)
        assert not client.is_alive() and not errors, errors
        deadline = time.monotonic() + 60.0  # llama-server adds a request's counts when its slot is released
        while time.monotonic() < deadline and not any(p["drafts"] for p in polls):
            line = lines.get(timeout=60.0)
            assert line is not None
            polls.append(json.loads(line))
    finally:
        stop(watch)  # type: ignore[arg-type]
    drafting = [p for p in polls if p["drafts"]]
    assert drafting, polls
    for p in polls:
        if p["alpha"] is None:
            assert p["alpha_basis"] is None
            continue
        assert p["alpha"] >= p["draft_yield"] - 1e-9, p  # was 0.8475 against a yield of 1.0 here
        assert p["alpha_basis"] in ("positions", "counts"), p
    # the drafts were shorter than the 8 series somewhere: α came from the counts, and says so
    short = [p for p in drafting if p["draft_tokens"] != p["drafts"] * len(p["per_position"])]
    assert short and all(p["alpha_basis"] == "counts" for p in short), drafting


def test_bench_reports_the_servers_gamma_and_the_one_asked(ngram_server: RunningServer) -> None:
    run = subprocess.run([sys.executable, "-m", "specview", "bench", "--url", ngram_server.url, "--raw",
                          "--prompt", PROMPT, "--max-tokens", "30", "--temperature", "0", "--gamma", "3",
                          "--json", "--table"], capture_output=True, text=True, timeout=WAIT_S, env=ENV,
                         stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr
    first, *table = run.stdout.splitlines()
    stats = json.loads(first)
    server = stats["gamma"]
    assert server > 3 and stats["gamma_asked"] == 3, stats  # 8 is the server's most; it drafted up to that
    assert stats["gamma_note"]["id"] == "gamma_server"
    assert stats["gamma_note"]["text"] == f"γ {server} (the server's; 3 was asked)"
    assert table[2].startswith(f"γ {server} (the server's; 3 was asked)"), table
