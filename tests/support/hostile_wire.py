"""Answers written byte by byte, for what a hostile server can do below the JSON: compression
bombs (stacked, or one layer past the bound), a trickle of bytes, endless `100 Continue`, SSE
comments forever, silence before the headers, redirects, broken chunked framing, a body cut
short. Each is a `Wire`, a function of the request handler that writes the whole answer itself
(`HostileServer.wire` maps a path, or "POST", to one). Every wait ends when the server is
released (at its shutdown), and a client that went away ends the answer.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Callable, Iterator
from functools import lru_cache
from http.server import BaseHTTPRequestHandler

Wire = Callable[[BaseHTTPRequestHandler], None]
GONE = (BrokenPipeError, ConnectionResetError)
_BLOCK = 2**20


def head(handler: BaseHTTPRequestHandler, status: str, headers: dict[str, str]) -> None:
    """The status line and headers, raw (nothing added, nothing checked)."""
    lines = [f"HTTP/1.1 {status}", *(f"{name}: {value}" for name, value in headers.items())]
    handler.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    handler.wfile.flush()


def _release(handler: BaseHTTPRequestHandler) -> threading.Event:
    release = getattr(handler.server, "release")  # noqa: B009 - HostileServer's, without importing it
    assert isinstance(release, threading.Event)
    return release


@lru_cache(maxsize=4)
def bomb(layers: tuple[str, ...], size: int) -> bytes:
    """`size` zero bytes compressed through `layers` in order ("gzip", "deflate"): the first
    layer inflates to `size` bytes, each further layer wraps the one before (a few kB in all)."""
    body = _zeros(layers[0], size)
    for layer in layers[1:]:
        packer = zlib.compressobj(9, zlib.DEFLATED, 31 if layer == "gzip" else 15)
        body = packer.compress(body) + packer.flush()
    return body


def _zeros(layer: str, size: int) -> bytes:
    """One gzip or zlib stream of `size` zeros, built in a second: after a full flush deflate
    restarts, so every 1 MiB block compresses to the same bytes, written once and repeated."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = packer.compress(b"\0" * _BLOCK) + packer.flush(zlib.Z_FULL_FLUSH)
    blocks = size // _BLOCK
    raw = block * blocks + packer.flush()
    zeros, check = b"\0" * _BLOCK, zlib.crc32 if layer == "gzip" else zlib.adler32
    total = 0 if layer == "gzip" else 1
    for _ in range(blocks):
        total = check(zeros, total)
    if layer == "gzip":
        return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + raw + struct.pack("<II", total, size & 0xFFFFFFFF)
    return b"\x78\xda" + raw + struct.pack(">I", total)


def answer(status: str, headers: dict[str, str], body: bytes) -> Wire:
    """A whole answer with a Content-Length (headers as given)."""
    def write(handler: BaseHTTPRequestHandler) -> None:
        try:
            head(handler, status, {**headers, "Content-Length": str(len(body))})
            handler.wfile.write(body)
            handler.wfile.flush()
        except GONE:
            return
    return write


def compressed(layers: tuple[str, ...], size: int, content_type: str = "application/json",
               status: str = "200 OK") -> Wire:
    """`size` zeros through `layers`, listed in `Content-Encoding` in the order they were applied
    (as RFC 9110 says a server lists them)."""
    return answer(status, {"Content-Type": content_type, "Content-Encoding": ", ".join(layers)}, bomb(layers, size))


def _forever(handler: BaseHTTPRequestHandler, pieces: Iterator[bytes], every: float) -> None:
    """Write each piece `every` seconds until released or the client goes away."""
    release = _release(handler)
    try:
        for piece in pieces:
            handler.wfile.write(piece)
            handler.wfile.flush()
            if release.wait(every):
                return
    except GONE:
        return


def _repeat(piece: bytes) -> Iterator[bytes]:
    while True:
        yield piece


def trickle(status: str, headers: dict[str, str], start: bytes, every: float = 1.0) -> Wire:
    """Headers (a Content-Length far beyond what comes), then `start` one byte every `every`
    seconds, then a space a second: never done, never silent for long."""
    def write(handler: BaseHTTPRequestHandler) -> None:
        try:
            head(handler, status, {**headers, "Content-Length": "100000000"})
        except GONE:
            return
        bytes_one_by_one = (start[i:i + 1] for i in range(len(start)))
        _forever(handler, _chain(bytes_one_by_one, _repeat(b" ")), every)
    return write


def _chain(first: Iterator[bytes], then: Iterator[bytes]) -> Iterator[bytes]:
    yield from first
    yield from then


def sse_trickle(start: bytes, every: float = 0.3) -> Wire:
    """An event stream whose first event arrives a byte at a time, as one-byte chunks, forever."""
    def write(handler: BaseHTTPRequestHandler) -> None:
        try:
            head(handler, "200 OK", {"Content-Type": "text/event-stream", "Transfer-Encoding": "chunked"})
        except GONE:
            return
        one_by_one = (b"1\r\n" + start[i % len(start):i % len(start) + 1] + b"\r\n" for i in range(10**9))
        _forever(handler, one_by_one, every)
    return write


def continues_forever(every: float = 0.05) -> Wire:
    """`100 Continue`, again and again: never an answer."""
    return lambda handler: _forever(handler, _repeat(b"HTTP/1.1 100 Continue\r\n\r\n"), every)


def comments_forever(every: float = 0.1) -> Wire:
    """An event stream of SSE comments only (keep-alives), never an event."""
    def write(handler: BaseHTTPRequestHandler) -> None:
        try:
            head(handler, "200 OK", {"Content-Type": "text/event-stream", "Transfer-Encoding": "chunked"})
        except GONE:
            return
        _forever(handler, _repeat(b"d\r\n: keep-alive\n\r\n"), every)
    return write


def silent(handler: BaseHTTPRequestHandler) -> None:
    """Read the request, answer nothing until released."""
    _release(handler).wait(120.0)


def broken_chunks(handler: BaseHTTPRequestHandler) -> None:
    """An event stream whose second chunk header is not a hexadecimal size."""
    try:
        head(handler, "200 OK", {"Content-Type": "text/event-stream", "Transfer-Encoding": "chunked"})
        handler.wfile.write(b"5\r\n: ok\n\r\nzz;\x1b]0;x\x07\r\ndata: {}\n\n\r\n")
        handler.wfile.flush()
    except GONE:
        return
    _release(handler).wait(30.0)


def cut_short(status: str, headers: dict[str, str], body: bytes, promised: int) -> Wire:
    """A Content-Length of `promised`, `body` (shorter), then the connection closed."""
    def write(handler: BaseHTTPRequestHandler) -> None:
        try:
            head(handler, status, {**headers, "Content-Length": str(promised)})
            handler.wfile.write(body)
            handler.wfile.flush()
        except GONE:
            return
        handler.close_connection = True
    return write


def after(count: int, first: Wire, then: Wire) -> Wire:
    """`first` for the first `count` requests, `then` for the rest (a server that turns hostile)."""
    seen = [0]
    lock = threading.Lock()

    def write(handler: BaseHTTPRequestHandler) -> None:
        with lock:
            seen[0] += 1
            turn = seen[0]
        (first if turn <= count else then)(handler)
    return write
