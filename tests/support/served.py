"""A test HTTP server run from a thread for the length of a `with` block."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
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
