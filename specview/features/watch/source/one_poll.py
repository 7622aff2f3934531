"""One answer per URL per poll: a poll reads llama-server's /slots for the tokens in flight, the
method still to learn and the requests pane; the server is asked once.

A poll is what its caller brackets with `poll()` (the single-server screen: scrape, describe,
requests; a fleet target: scrape, describe); outside one every probe asks the server, so a reader
that polls on its own (requests() in a loop, the headless watch's scrapes) never sees an old answer.
The memo lives here, not in the remote Connection: only the watch knows where its poll begins and
ends, and every target the fleet scrapes directly is a ServerWatch (source/direct.py), so this serves
them too; the remote backend and detection share the Connection and must always ask afresh."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from specview.backends.remote.server_kind import Probe


class OnePoll:
    """A Probe that keeps each JSON answer for the length of one poll (text probes pass through)."""

    def __init__(self, conn: Probe) -> None:
        self._conn = conn
        self.root = conn.root
        self._json: dict[str, Any | None] = {}
        self._open = False

    @contextmanager
    def poll(self) -> Iterator[None]:
        """One poll: its JSON answers are kept until it ends, then forgotten."""
        self._json.clear()
        self._open = True
        try:
            yield
        finally:
            self._json.clear()
            self._open = False

    def probe_json(self, url: str) -> Any | None:
        if not self._open:
            return self._conn.probe_json(url)
        if url not in self._json:
            self._json[url] = self._conn.probe_json(url)
        return self._json[url]

    def probe_text(self, url: str) -> str | None:
        return self._conn.probe_text(url)
