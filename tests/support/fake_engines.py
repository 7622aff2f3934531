"""Small real HTTP servers that answer like an engine family, for the totals and cross-check tests.

`sglang`: /get_server_info names EAGLE with 4 draft tokens (γ 3); a chat stream whose chunks merge
verify steps (as when the client lags), then, after the finish chunk, SGLang's extra chunk with
`choices: []` and `sglext.spec_tokens_details` (the 0.5.23 wheel's shape: protocol.py `SglExt`).
`llama` / `llama-differs`: /props names a build; the stream carries `timings_per_token` counters
(the table of ../shared/research/llama-server-observed.md); /metrics counts a request when it
ends, as llama-server does when it releases the slot, exactly (`llama`) or with one accepted
draft too many at position 2 (`llama-differs`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.served import end_chunks, send_body, send_chunk, send_json, served, sse_event, start_chunks

# SGLang: tokens per streamed chunk (the prompt's token, then merged steps) and the request's truth:
# its five verify steps accepted 2, 0, 1, 0 and 2 drafts (1 + Σ(a + 1) = 11 tokens)
SGLANG_CHUNKS = (1, 4, 2, 1, 3)
SGLANG_DETAILS = {
    "spec_accept_rate": 5 / 15, "spec_accept_length": 11 / 5, "spec_cap_length": 0.0,
    "spec_block_accept_length": 0.0, "spec_num_correct_drafts": 5, "spec_num_proposed_drafts": 15,
    "spec_verify_ct": 5, "spec_correct_drafts_histogram": [2, 1, 2, 0], "spec_cap_lens_histogram": [],
}

# llama-server: (text, predicted_n, predicted_ms, draft_n, draft_n_accepted) per chunk
LLAMA_CHUNKS = ((" ", 1, 0.0, 0, 0), ("1", 2, 43.1, 3, 1), ("3", 3, 43.1, 3, 1), (",", 4, 65.8, 3, 1),
                (" ", 5, 123.2, 7, 2), ("1", 6, 123.2, 7, 2))
LLAMA_REQUEST = {"drafts": 2, "draft_tokens": 7, "accepted": 2, "per_pos": [2]}  # what the rounds count


def _chat(text: str | None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": {} if text is None else {"content": text}, "finish_reason": finish}
    return {"object": "chat.completion.chunk", "model": "fake", "choices": [choice], **extra}


class EngineServer(ThreadingHTTPServer):
    """Plays one engine family (`kind`); /metrics counts the requests served so far."""

    daemon_threads = True

    def __init__(self, kind: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.kind = kind
        self.release = threading.Event()
        self.counted = {"drafts": 0, "draft_tokens": 0, "accepted": 0, "per_pos": [0, 0]}
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def metrics_text(self) -> str:
        with self.lock:
            c = self.counted
            lines = [f"llamacpp:spec_decode_num_drafts_total {c['drafts']}",
                     f"llamacpp:spec_decode_num_draft_tokens_total {c['draft_tokens']}",
                     f"llamacpp:spec_decode_num_accepted_tokens_total {c['accepted']}"]
            lines += [f'llamacpp:spec_decode_num_accepted_tokens_per_pos_total{{position="{k}"}} {n}'
                      for k, n in enumerate(c["per_pos"])]
        return "\n".join(lines) + "\n"

    def count_request(self) -> None:
        """The slot is released: the request's counts reach /metrics."""
        extra = 1 if self.kind == "llama-differs" else 0
        with self.lock:
            c = self.counted
            c["drafts"] += LLAMA_REQUEST["drafts"]
            c["draft_tokens"] += LLAMA_REQUEST["draft_tokens"]
            c["accepted"] += LLAMA_REQUEST["accepted"] + extra
            c["per_pos"][0] += LLAMA_REQUEST["per_pos"][0]
            c["per_pos"][1] += extra


class _Handler(BaseHTTPRequestHandler):
    server: EngineServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def _json(self, body: object) -> None:
        send_json(self, 200, body)

    def do_GET(self) -> None:
        sglang = self.server.kind == "sglang"
        if self.path == "/v1/models":
            self._json({"object": "list", "data": [{"id": "fake", "object": "model",
                                                    "owned_by": "sglang" if sglang else "llamacpp"}]})
        elif sglang and self.path == "/get_server_info":
            self._json({"speculative_algorithm": "EAGLE", "speculative_num_draft_tokens": 4, "version": "0.5.23"})
        elif not sglang and self.path == "/props":
            self._json({"build_info": "b9999-fake",
                        "default_generation_settings": {"params": {"speculative.types": "ngram-simple"}}})
        elif not sglang and self.path == "/metrics":
            send_body(self, 200, self.server.metrics_text().encode(), "text/plain; version=0.0.4")
        else:
            send_body(self, 404, b'{"error": {"message": "File Not Found", "code": 404}}')

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        start_chunks(self)
        if self.server.kind == "sglang":
            self._sglang()
        else:
            self._llama()
        self._event(None)
        end_chunks(self)

    def _sglang(self) -> None:
        done = 0
        for size in SGLANG_CHUNKS:
            done += size
            self._event(_chat("".join(f" w{done - size + k}" for k in range(size)),
                              usage={"prompt_tokens": 5, "completion_tokens": done, "total_tokens": 5 + done}))
        self._event(_chat("", finish="length"))
        self._event({"id": "x", "object": "chat.completion.chunk", "model": "fake", "choices": [],
                     "sglext": {"routed_experts": None, "spec_tokens_details": SGLANG_DETAILS}})

    def _llama(self) -> None:
        self._event({"choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}]})
        for text, n, ms, draft_n, accepted in LLAMA_CHUNKS:
            timings = {"prompt_n": 12, "prompt_ms": 30.0, "predicted_n": n, "predicted_ms": ms,
                       "draft_n": draft_n, "draft_n_accepted": accepted}
            self._event(_chat(text, timings=timings))
        self._event(_chat(None, finish="length"))
        self.server.count_request()

    def _event(self, body: dict[str, Any] | None) -> None:
        send_chunk(self, sse_event(body))


@contextmanager
def running_engine(kind: str) -> Iterator[EngineServer]:
    """An EngineServer on 127.0.0.1, served from a thread until the block ends."""
    server = EngineServer(kind)
    with served(server, server.release) as running:
        yield running
