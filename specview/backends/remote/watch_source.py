"""Where `specview watch` gets its scrapes: a server's /metrics (and llama-server's /slots).

No prompt is sent. The family is detected like the remote backend does (registry order,
`--server` to force one), but without listing models. Each `scrape()` reads the family's
speculative counters, generated-token counter, running-requests gauge and extra gauges
into a `core.watch.Scrape`; a family without speculative counters (SGLang: gauges only, a
generic server: none) gives a Scrape with those fields empty, and the monitor says so.
"""

from __future__ import annotations

import time

from specview.backends.remote.client import Connection
from specview.backends.remote.metrics import parse_draft_counters, parse_gauges, parse_sums
from specview.backends.remote.registry import SERVER_KINDS, kind_by_id, server_ids
from specview.backends.remote.server_kind import ServerFacts, ServerKind
from specview.core.errors import BackendError
from specview.core.text import sanitize
from specview.core.watch import Scrape

METRICS_HINT = "there is no /metrics to watch: llama-server needs --metrics; vLLM and SGLang serve it by default"
MAX_COUNT = 10**15  # counts beyond this are not believed


class ServerWatch:
    """One server, polled for /metrics."""

    def __init__(self, url: str, api_key: str | None = None, key_env: str | None = None,
                 server: str | None = None) -> None:
        if server is not None and kind_by_id(server) is None:
            raise BackendError(f"--server must be one of {', '.join(server_ids())}, got {server!r}")
        self._conn = Connection(url, api_key, key_env)
        try:
            self._conn.get_text(f"{self._conn.root}/metrics", "reading /metrics", hint=METRICS_HINT)
            self.kind, self.facts = self._detect(server)
        except BaseException:
            self._conn.close()
            raise

    @property
    def root(self) -> str:
        return self._conn.root

    def _detect(self, server: str | None) -> tuple[ServerKind, ServerFacts]:
        wanted = kind_by_id(server) if server else None
        for kind in [wanted] if wanted is not None else SERVER_KINDS:
            identified = kind.identify(self._conn)
            if kind is wanted or kind.recognised(identified):
                return kind, kind.facts(self._conn, identified, None)
        raise AssertionError("the registry ends with a family that recognises every server")

    def describe(self) -> str:
        """'llama-server b1234 · MTP (draft-mtp) · http://host:port' (sanitized)."""
        if self.facts.method is None and self.facts.speculating:
            facts = self.kind.facts(self._conn, self.kind.identify(self._conn), None)
            if facts.method is not None:
                self.facts = facts
        parts = [self.kind.server_name(self.facts), self.facts.method, self._conn.root]
        return sanitize(" · ".join(p for p in parts if p))

    def scrape(self) -> Scrape:
        """One poll. Raises BackendError when the server stopped answering /metrics."""
        t = time.monotonic()
        text = self._conn.get_text(f"{self._conn.root}/metrics", "watching /metrics")
        kind = self.kind
        counters = parse_draft_counters(text, kind.metrics_prefix) if kind.metrics_prefix else None
        names = tuple(n for n in (kind.tokens_counter, kind.active_gauge) if n)
        sums = parse_sums(text, names) if names else {}
        tokens = sums.get(kind.tokens_counter or "")
        active = sums.get(kind.active_gauge or "")
        return Scrape(
            t=t,
            drafts=_bounded(counters.drafts) if counters else None,
            draft_tokens=_bounded(counters.draft_tokens) if counters else None,
            accepted=_bounded(counters.accepted) if counters else None,
            per_position=tuple(_bounded(n) for n in counters.per_position[:64]) if counters else (),
            tokens=_bounded(round(tokens)) if tokens is not None else None,
            in_flight=kind.in_flight_tokens(self._conn),
            active=active,
            gauges=parse_gauges(text, kind.watch_gauges) if kind.watch_gauges else {},
        )

    def close(self) -> None:
        self._conn.close()


def _bounded(n: int) -> int:
    return max(0, min(int(n), MAX_COUNT))
