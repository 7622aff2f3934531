"""A small real HTTP server that speaks (and breaks) the OpenAI streaming API, for remote-backend tests.

`mode` picks the behaviour: "ok" (a generic server: three plain chunks), "vllm" / "vllm-detailed"
(grouped chunks, /metrics, per_step_accepted), "401", "401-models", "404", "500", "close",
"malformed", "stall".
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.served import end_chunks, send_body, send_chunk, send_json, served, sse_event, start_chunks

GOOD_CHUNKS = 3
SECRET = "sk-test-secret-0123456789"


AUTH_ERROR = {"error": {"code": 401, "message": "Invalid API Key", "type": "authentication_error"}}
MODELS = {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "me"}]}
VLLM_MODELS = {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "vllm"}]}
VLLM_METRICS = "".join(  # three speculative tokens: three `position` series
    f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine="0",model_name="fake-model",position="{k}"}} 0.0\n'
    for k in range(3)
) + 'vllm:spec_decode_num_drafts_total{engine="0",model_name="fake-model"} 0.0\n'


def _chunk(text: str, finish: str | None = None) -> bytes:
    body = {"object": "chat.completion.chunk", "model": "fake-model",
            "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}
    return sse_event(body)


class FakeServer(ThreadingHTTPServer):
    """An OpenAI-ish server whose completion endpoint misbehaves as `mode` says."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode = "ok"
        self.release = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: FakeServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            if self.server.mode == "401-models":
                send_json(self, 401, AUTH_ERROR)
                return
            send_json(self, 200, VLLM_MODELS if self.server.mode.startswith("vllm") else MODELS)
            return
        if self.path == "/metrics" and self.server.mode.startswith("vllm"):
            send_body(self, 200, VLLM_METRICS.encode(), "text/plain; version=0.0.4")
            return
        send_json(self, 404, {"error": {"message": "File Not Found", "type": "not_found_error", "code": 404}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length) or b"{}")
        mode = self.server.mode
        if mode == "401" and self.headers.get("Authorization") != "Bearer right-key":
            send_json(self, 401, AUTH_ERROR)
            return
        if mode == "404":
            message = f"The model `{request.get('model')}` does not exist."
            send_json(self, 404, {"error": {"message": message, "type": "NotFoundError", "code": 404}})
            return
        if mode == "500":
            send_json(self, 500, {"error": {"message": "CUDA out of memory", "type": "server_error", "code": 500}})
            return
        start_chunks(self)
        if mode in ("vllm", "vllm-detailed"):
            assert request["stream_options"] == {"include_usage": True, "continuous_usage_stats": True}
            for done, ids in ((1, [5]), (3, [6, 7]), (7, [8, 9, 10, 11])):
                body = json.loads(_chunk("".join(f" t{i}" for i in ids))[6:])
                body["choices"][0]["token_ids"] = ids
                body["usage"] = {"prompt_tokens": 4, "completion_tokens": done, "total_tokens": 4 + done}
                send_chunk(self, sse_event(body))
            if mode == "vllm-detailed":
                # `--per-request-spec-decode-metrics detailed` (vLLM PR #48915): the last chunk says the
                # two-token chunk was really two steps with nothing accepted (the client lagged), and so on.
                final = {"id": "x", "object": "chat.completion.chunk", "choices": [],
                         "metrics": {"speculative_decoding": {
                             "num_spec_steps": 4, "num_draft_tokens": 12, "num_accepted_draft_tokens": 2,
                             "num_spec_tokens": 3, "per_step_accepted": [0, 0, 2, 0]}}}
                send_chunk(self, sse_event(final))
        for k in range(0 if mode.startswith("vllm") else GOOD_CHUNKS):
            send_chunk(self, _chunk(f" word{k}"))
        if mode == "close":
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if mode == "malformed":
            send_chunk(self, b'data: {"choices": [{"delta": {"content": "x"\n\n')
        elif mode == "stall":
            self.server.release.wait(5.0)
        else:
            send_chunk(self, _chunk("", finish="stop"))
            send_chunk(self, sse_event(None))
        end_chunks(self)


@contextmanager
def running_fake(mode: str = "ok") -> Iterator[FakeServer]:
    """A FakeServer on 127.0.0.1, served from a thread until the block ends."""
    server = FakeServer()
    server.mode = mode
    with served(server, server.release) as running:
        yield running
