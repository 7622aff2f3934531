"""A small real completion server for `sweep load` tests: non-streamed answers whose draft counts
it chooses (none, `timings`, hostile values) and /metrics speculative counters in vLLM's names."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.served import send_body, send_json, served

MODELS = {"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "vllm"}]}


class CountingServer(ThreadingHTTPServer):
    """A vLLM-like server: completions without `timings` (or with the given one); /metrics
    counters that grow by `drafts` drafted (`accepted` accepted) tokens a request, or no /metrics."""

    def __init__(self, drafts: int, accepted: int, metrics: bool, timings: Any = None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.drafts, self.accepted, self.metrics = drafts, accepted, metrics
        self.timings = timings  # sent as each answer's `timings` when not None
        self.requests = 0
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(BaseHTTPRequestHandler):
    server: CountingServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            send_json(self, 200, MODELS)
        elif self.path == "/metrics" and self.server.metrics:
            n = self.server.requests
            text = (f'vllm:spec_decode_num_drafts_total{{engine="0"}} {n * 2}.0\n'
                    f'vllm:spec_decode_num_draft_tokens_total{{engine="0"}} {n * self.server.drafts}.0\n'
                    f'vllm:spec_decode_num_accepted_tokens_total{{engine="0"}} {n * self.server.accepted}.0\n')
            send_body(self, 200, text.encode(), "text/plain")
        else:
            send_json(self, 404, {"error": "no"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        request = json.loads(self.rfile.read(length))
        with self.server.lock:
            self.server.requests += 1
        answer = {"object": "text_completion", "choices": [{"text": "x", "index": 0}],
                  "usage": {"completion_tokens": request["max_tokens"], "prompt_tokens": 3}}
        if self.server.timings is not None:
            answer["timings"] = self.server.timings
        send_json(self, 200, answer)


@contextmanager
def counting(drafts: int, accepted: int = 0, metrics: bool = True, timings: Any = None) -> Iterator[CountingServer]:
    """Serve a CountingServer on 127.0.0.1 for the block."""
    with served(CountingServer(drafts, accepted, metrics, timings), threading.Event()) as server:
        yield server
