"""A server that reports only totals, in its final usage chunk (TabbyAPI's inferred shape), end to end:
a small real HTTP server on 127.0.0.1 streams plain OpenAI chat chunks and then
`usage.completion_tokens_details` with accepted / rejected prediction tokens, and
`specview bench --server tabbyapi --json` in a child process carries them as its `totals`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.served import end_chunks, send_body, send_chunk, send_json, served, sse_event, start_chunks

WORDS = tuple(f" t{k}" for k in range(9))
ACCEPTED, REJECTED = 5, 7


class _Tabby(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        card = {"id": "fake", "object": "model", "owned_by": "tabbyAPI", "parameters": {"draft": {"id": "small"}}}
        if self.path == "/v1/models":
            send_json(self, 200, {"object": "list", "data": [card]})
        elif self.path == "/v1/model":
            send_json(self, 200, card)
        else:
            send_body(self, 404, b"")

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        start_chunks(self)
        for word in WORDS:
            self._event({"object": "chat.completion.chunk", "model": "fake",
                         "choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}]})
        self._event({"object": "chat.completion.chunk", "model": "fake",
                     "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]})
        details = {"accepted_prediction_tokens": ACCEPTED, "rejected_prediction_tokens": REJECTED}
        self._event({"object": "chat.completion.chunk", "model": "fake", "choices": [],
                     "usage": {"prompt_tokens": 4, "completion_tokens": len(WORDS), "total_tokens": 4 + len(WORDS),
                               "completion_tokens_details": details}})
        self._event(None)
        end_chunks(self)

    def _event(self, body: dict[str, Any] | None) -> None:
        send_chunk(self, sse_event(body))


@contextmanager
def tabby_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Tabby)
    server.daemon_threads = True
    with served(server, threading.Event()):
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"


def bench_json(*args: str) -> dict[str, Any]:
    run = subprocess.run([sys.executable, "-m", "specview", "bench", *args, "--json"], capture_output=True,
                         text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"}, stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr
    (line,) = run.stdout.splitlines()
    stats: dict[str, Any] = json.loads(line)
    return stats


def test_final_usage_chunk_totals_reach_bench_json() -> None:
    for forced in (("--server", "tabbyapi"), ()):  # named, and found by /v1/models owned_by
        with tabby_server() as url:
            stats = bench_json("--url", url, *forced)
        totals = stats["totals"]
        assert totals["source"] == "usage.completion_tokens_details"
        assert (totals["drafted"], totals["accepted"], totals["tokens"]) == (ACCEPTED + REJECTED, ACCEPTED, len(WORDS))
        # the stream alone drafted nothing: these counts are the final chunk's
        assert (stats["drafted"], stats["accepted"], stats["tokens"]) == (ACCEPTED + REJECTED, ACCEPTED, len(WORDS))
        assert stats["rounds"] == len(WORDS) - ACCEPTED
        assert stats["text"] == "".join(WORDS)
