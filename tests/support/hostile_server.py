"""A small OpenAI-compatible server written to misbehave, for the hostile-input tests.

It serves one `Scenario` at a time on 127.0.0.1: what `/v1/models` lists, what `/props`,
`/version` or `/metrics` answer, and what the completion endpoint streams (decoded events,
raw bytes, or a generator of bytes for answers too large to hold), an error status instead,
or a stream that stalls until released. `@KEY@` in any body is replaced by the bearer token
the request carried, as a server that reflects the key back would do. Below HTTP's semantics,
`server.wire` maps a path (or "POST") to a function that writes the whole answer byte by byte
(hostile_wire.py: compression bombs, trickles, endless 100 Continue, broken framing…).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.served import end_chunks, send_body, send_chunk, served, sse_event, start_chunks

Event = dict[str, Any] | bytes | Callable[[], Iterable[bytes]]


def chat_chunk(text: str, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """A /v1/chat/completions stream chunk carrying `text`."""
    return {"object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}], **extra}


def llama_chunk(text: str, n: int, ms: float, draft_n: int = 0, accepted: int = 0) -> dict[str, Any]:
    """A llama-server chunk with `timings_per_token` counters."""
    timings = {"predicted_n": n, "predicted_ms": ms, "draft_n": draft_n, "draft_n_accepted": accepted}
    return chat_chunk(text, timings=timings)


@dataclass
class Scenario:
    """What the server answers (see the module docstring)."""

    models: list[Any] = field(default_factory=lambda: [{"id": "m", "owned_by": "me"}])
    get: dict[str, tuple[int, str, bytes]] = field(default_factory=dict)  # path -> status, type, body
    post_status: int = 200
    post_body: bytes = b""
    content_type: str = "text/event-stream"
    events: list[Event] = field(default_factory=list)
    done: bool = True  # end with a finish chunk and [DONE]
    stall: bool = False  # hold the stream open (no data) until the server is released


class HostileServer(ThreadingHTTPServer):
    """Serves `self.scenario`; `release` ends every stalled stream."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.scenario = Scenario()
        self.release = threading.Event()
        self.requests: list[str] = []
        self.wire: dict[str, Callable[[BaseHTTPRequestHandler], None]] = {}  # see the module docstring
        self.authorizations: list[str | None] = []  # each request's Authorization header (None: none sent)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@contextmanager
def hostile_server() -> Iterator[HostileServer]:
    """A running server in a thread, shut down (and every stalled stream released) at the end."""
    server = HostileServer()
    with served(server, server.release) as running:
        yield running


class _Handler(BaseHTTPRequestHandler):
    server: HostileServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def _key(self) -> bytes:
        return self.headers.get("Authorization", "").removeprefix("Bearer ").encode()

    def _answer(self, code: int, kind: str, body: bytes) -> None:
        send_body(self, code, body.replace(b"@KEY@", self._key()), kind)

    def do_GET(self) -> None:
        self.server.requests.append(f"GET {self.path}")
        self.server.authorizations.append(self.headers.get("Authorization"))
        scenario = self.server.scenario
        path = self.path.split("?", 1)[0]
        if path in self.server.wire:
            self.server.wire[path](self)
        elif path == "/v1/models":
            self._answer(200, "application/json", json.dumps({"object": "list", "data": scenario.models}).encode())
        elif path in scenario.get:
            code, kind, body = scenario.get[path]
            self._answer(code, kind, body)
        else:
            self._answer(404, "application/json", b'{"error": {"message": "not found", "code": 404}}')

    def do_POST(self) -> None:
        self.server.requests.append(f"POST {self.path}")
        self.server.authorizations.append(self.headers.get("Authorization"))
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        scenario = self.server.scenario
        if "POST" in self.server.wire:
            self.server.wire["POST"](self)
            return
        if scenario.post_status != 200:
            self._answer(scenario.post_status, "application/json", scenario.post_body)
            return
        start_chunks(self, scenario.content_type)
        try:
            for event in scenario.events:
                for data in _event_bytes(event):
                    send_chunk(self, data.replace(b"@KEY@", self._key()))
            if scenario.stall:
                self.server.release.wait(60.0)
            if scenario.done:
                send_chunk(self, sse_event(chat_chunk("", finish="stop")))
                send_chunk(self, sse_event(None))
            end_chunks(self)
        except (BrokenPipeError, ConnectionResetError):
            return  # the client went away: that is what some cases test


def _event_bytes(event: Event) -> Iterable[bytes]:
    if isinstance(event, dict):
        return [sse_event(event)]
    if isinstance(event, bytes):
        return [event]
    return event()
