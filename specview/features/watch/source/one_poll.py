"""One answer per URL per poll: a poll reads llama-server's /slots for the tokens in flight, the
requests pane and (until it is known) the speculative method; the server is asked once.

A poll is what lies between `new_poll()` (the scrape) and `end_poll()` (its last reader, the
requests pane); outside one every probe asks the server, so a reader that polls on its own
(requests() in a loop) never sees an old answer."""

from __future__ import annotations

from typing import Any

from specview.backends.remote.server_kind import Probe


class OnePoll:
    """A Probe that keeps each JSON answer for the length of one poll (text probes pass through)."""

    def __init__(self, conn: Probe) -> None:
        self._conn = conn
        self.root = conn.root
        self._json: dict[str, Any | None] = {}
        self._open = False

    def new_poll(self) -> None:
        """A poll begins: forget the last one's answers and keep this one's."""
        self._json.clear()
        self._open = True

    def end_poll(self) -> None:
        """The poll's last reader is done: later probes ask the server again."""
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
