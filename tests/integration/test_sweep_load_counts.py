"""`sweep load` against servers that report no per-request draft counts: it falls back to the
speculative counters of /metrics (vLLM's names), and says so when there are none."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from specview.cli import main
from tests.support.served import send_body, send_json, served

MODELS = {"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "vllm"}]}


class CountingServer(ThreadingHTTPServer):
    """A vLLM-like server: completions without `timings`; /metrics counters that grow by
    `drafts` drafted (`accepted` accepted) tokens a request, or no /metrics at all."""

    def __init__(self, drafts: int, accepted: int, metrics: bool) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.drafts, self.accepted, self.metrics = drafts, accepted, metrics
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
        send_json(self, 200, {"object": "text_completion", "choices": [{"text": "x", "index": 0}],
                              "usage": {"completion_tokens": request["max_tokens"], "prompt_tokens": 3}})


@contextmanager
def counting(drafts: int, accepted: int = 0, metrics: bool = True) -> Iterator[CountingServer]:
    with served(CountingServer(drafts, accepted, metrics), threading.Event()) as server:
        yield server


def sweep(on: CountingServer, off: CountingServer, *extra: str) -> list[str]:
    return ["sweep", "load", "--on", on.url, "--off", off.url, "--concurrency", "1,2", "--requests", "2",
            "--max-tokens", "8", *extra]


def test_drafts_come_from_the_metrics_counters(capsys: pytest.CaptureFixture[str]) -> None:
    with counting(10, 7) as on, counting(0) as off:
        assert main(sweep(on, off, "--repeats", "2", "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert not data["notes"]
    # level 1: 2 repeats × 1 client × 2 requests; level 2: 2 × 2 × 2 (the warm-up is outside)
    assert [(p["on_drafted"], p["on_accepted"], p["off_drafted"]) for p in data["points"]] == [(40, 28, 0),
                                                                                              (80, 56, 0)]


def test_an_off_server_that_drafts_by_its_metrics_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with counting(10, 7) as on, counting(4, 1) as off, pytest.raises(SystemExit) as exit_:
        main(sweep(on, off, "--repeats", "2", "--json"))
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the --off server" in err[0] and "drafted 16 tokens (4 accepted) at 1 clients" in err[0]


def test_without_counts_the_sweep_says_it_could_not_check(capsys: pytest.CaptureFixture[str]) -> None:
    with counting(10, 7, metrics=False) as on, counting(0, metrics=False) as off:
        assert main(sweep(on, off, "--repeats", "2")) == 0
    out = capsys.readouterr().out
    assert f"could not check whether the --on server {on.url.removesuffix('/v1')} drafted" in out
    assert "could not check whether the --off server" in out
