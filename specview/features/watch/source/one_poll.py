"""One answer per URL per poll: a poll reads llama-server's /slots for the tokens in flight, the
requests pane and (until it is known) the speculative method; the server is asked once."""

from __future__ import annotations

from typing import Any

from specview.backends.remote.server_kind import Probe


class OnePoll:
    """A Probe that keeps each JSON answer until `new_poll()` (text probes pass through)."""

    def __init__(self, conn: Probe) -> None:
        self._conn = conn
        self.root = conn.root
        self._json: dict[str, Any | None] = {}

    def new_poll(self) -> None:
        """Forget the last poll's answers: the next probe of each URL asks the server again."""
        self._json.clear()

    def probe_json(self, url: str) -> Any | None:
        if url not in self._json:
            self._json[url] = self._conn.probe_json(url)
        return self._json[url]

    def probe_text(self, url: str) -> str | None:
        return self._conn.probe_text(url)
