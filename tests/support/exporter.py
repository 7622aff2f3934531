"""A small real llama-server look-alike for fleet tests: /metrics from counters the test moves.

It answers what detection asks of a llama-server (/v1/models owned by llamacpp, /props, /slots)
and serves `llamacpp:` speculative counters, generated tokens and running requests from its
fields; `advance()` moves them as a server would. `mode` makes it misbehave: "hang" holds every
request until the test ends, "error" answers 500 with `error_body`; `props` is what /props says.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.served import served

PROPS = {"build_info": "b1-exporter", "default_generation_settings": {"params": {"speculative.types": "draft-mtp"}}}


@dataclass
class Counters:
    drafts: int = 0
    draft_tokens: int = 0
    per_position: list[int] = field(default_factory=lambda: [0, 0, 0])
    tokens: int = 0
    running: int = 0

    @property
    def accepted(self) -> int:
        return sum(self.per_position)

    def text(self) -> str:
        p = "llamacpp:spec_decode_"
        lines = [f"{p}num_drafts_total {self.drafts}", f"{p}num_draft_tokens_total {self.draft_tokens}",
                 f"{p}num_accepted_tokens_total {self.accepted}"]
        lines += [f'{p}num_accepted_tokens_per_pos_total{{position="{k}"}} {n}'
                  for k, n in enumerate(self.per_position)]
        lines += [f"llamacpp:tokens_predicted_total {self.tokens}", f"llamacpp:requests_processing {self.running}"]
        return "\n".join(lines) + "\n"


class Exporter(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.counters = Counters()
        self.mode = "ok"
        self.props: dict[str, object] = PROPS
        self.error_body = b"broken"
        self.release = threading.Event()
        self.lock = threading.Lock()

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def advance(self, drafts: int, per_position: tuple[int, ...], tokens: int | None = None,
                running: int | None = None) -> None:
        """`drafts` drafts of len(per_position) tokens each, `per_position[k]` accepted at k."""
        with self.lock:
            c = self.counters
            c.drafts += drafts
            c.draft_tokens += drafts * len(c.per_position)
            for k, n in enumerate(per_position):
                c.per_position[k] += n
            c.tokens += tokens if tokens is not None else drafts + sum(per_position)
            if running is not None:
                c.running = running


class _Handler(BaseHTTPRequestHandler):
    server: Exporter

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.server.mode == "hang":
            self.server.release.wait(30)
            return
        if self.server.mode == "error":
            self._send(500, "text/plain", self.server.error_body)
            return
        path = self.path.split("?", 1)[0]
        if path == "/metrics":
            with self.server.lock:
                body = self.server.counters.text().encode()
            self._send(200, "text/plain; version=0.0.4", body)
        elif path in ("/v1/models", "/models"):
            self._send(200, "application/json", json.dumps({"data": [{"id": "m", "owned_by": "llamacpp"}]}).encode())
        elif path == "/props":
            self._send(200, "application/json", json.dumps(self.server.props).encode())
        elif path == "/slots":
            self._send(200, "application/json", b"[]")
        else:
            self._send(404, "text/plain", b"not found")

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def exporters(n: int) -> Iterator[list[Exporter]]:
    """`n` exporters served for the length of the block."""
    with ExitStack() as stack:
        started = []
        for _ in range(n):
            server = Exporter()
            started.append(stack.enter_context(served(server, server.release)))
        yield started


def nobody_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (a port just freed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    return f"http://127.0.0.1:{port}"
