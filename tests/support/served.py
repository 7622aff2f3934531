"""A test HTTP server run from a thread for the length of a `with` block, and what its handlers
send: a whole body, or chunks (server-sent events)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TypeVar

S = TypeVar("S", bound=ThreadingHTTPServer)


@contextmanager
def served(server: S, release: threading.Event) -> Iterator[S]:
    """Serve `server` from a daemon thread; at the end set `release` (every stalled handler waits
    on it) and shut the server down."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def send_body(handler: BaseHTTPRequestHandler, code: int, body: bytes, kind: str = "application/json",
              headers: Mapping[str, str] | None = None) -> None:
    """Answer with status `code` and the whole of `body` (its type `kind`, its length, `headers`)."""
    handler.send_response(code)
    handler.send_header("Content-Type", kind)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def send_json(handler: BaseHTTPRequestHandler, code: int, value: object) -> None:
    """`send_body` with `value` as JSON."""
    send_body(handler, code, json.dumps(value).encode())


def start_chunks(handler: BaseHTTPRequestHandler, kind: str = "text/event-stream") -> None:
    """Begin a 200 answer sent in chunks (`send_chunk` each, then `end_chunks`)."""
    handler.send_response(200)
    handler.send_header("Content-Type", kind)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()


def send_chunk(handler: BaseHTTPRequestHandler, data: bytes) -> None:
    """One chunk, flushed at once (nothing for empty `data`: an empty chunk would end the body)."""
    if data:
        handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        handler.wfile.flush()


def end_chunks(handler: BaseHTTPRequestHandler) -> None:
    handler.wfile.write(b"0\r\n\r\n")


def sse_event(body: object | None) -> bytes:
    """One server-sent event carrying `body` as JSON; None is the `[DONE]` that ends a completion."""
    return b"data: [DONE]\n\n" if body is None else f"data: {json.dumps(body)}\n\n".encode()
