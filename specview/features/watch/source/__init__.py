"""Where `specview watch` gets its scrapes: a server's /metrics (and llama-server's /slots, for
tokens in flight and the requests pane: source/requests.py).

No prompt is sent. The family is detected like the remote backend does (registry order,
`--server` to force one), but without listing models. Each `scrape()` reads the family's
speculative counters, generated-token counter, running-requests gauge and extra gauges
into a `Scrape` (features/watch/model/__init__.py); a family without speculative counters (SGLang: gauges only, a
generic server: none) gives a Scrape with those fields empty, and the monitor says so.
Every count is bounded (boundary/bounds.py): a value the server sent that is not a count is one
BackendError naming the server and the series, never a clamped number.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager

from specview.backends.remote.client import Connection
from specview.backends.remote.metrics import (
    count_sums,
    draft_counters,
    gauge_means,
    read_samples,
    spec_family,
    sum_families,
)
from specview.backends.remote.registry import checked_kind, detect
from specview.backends.remote.server_values import learned_method, server_values
from specview.backends.remote.timeouts import Timeouts
from specview.boundary.api_key import ApiKey
from specview.features.watch.model import Scrape
from specview.features.watch.model.requests import RequestsNow
from specview.features.watch.source.one_poll import OnePoll
from specview.features.watch.source.requests import read_requests
from specview.texts.catalog import Phrase

METRICS_HINT = Phrase("watcherr.source.metrics_hint")


class ServerWatch:
    """One server, polled for /metrics."""

    def __init__(self, url: str, api_key: ApiKey | None = None, key_env: str | None = None,
                 server: str | None = None, timeouts: Timeouts | None = None) -> None:
        wanted = checked_kind(server)
        self._conn = Connection(url, api_key, key_env, timeouts)
        self._poll = OnePoll(self._conn)  # /slots read once a poll (`one_poll`), however many parts want it
        self._scrapes = 0  # detection's notes go with the second scrape: a model folds the first into no sample
        try:
            self._conn.get_text(f"{self._conn.root}/metrics", Phrase("watcherr.doing.metrics"), hint=METRICS_HINT)
            with self._server_values(Phrase("watcherr.doing.detecting")):
                self.kind, self.facts = detect(self._conn, wanted, None)
        except BaseException:
            self._conn.close()
            raise

    @property
    def root(self) -> str:
        return self._conn.root

    def _server_values(self, what: str | Phrase) -> AbstractContextManager[None]:
        return server_values(self._conn.root, what)

    def one_poll(self) -> AbstractContextManager[None]:
        """Bracket one poll's scrape, describe and requests: /slots is asked once for all of them."""
        return self._poll.poll()

    def describe(self, *, learn: bool = True) -> str:
        """'llama-server b1234 · MTP (draft-mtp) · http://host:port' (data: sanitize to show).
        The method may show only once a slot has served a request: with `learn` the server is
        asked again until it does (a request: not from the UI thread)."""
        learned = learned_method(self.kind, self._poll, self.facts) if learn else None
        if learned is not None:
            self.facts = learned
        parts = [self.kind.server_name(self.facts), self.facts.method, self._conn.root]
        return " · ".join(p for p in parts if p)

    def scrape(self) -> Scrape:
        """One poll, within the request timeout. Raises BackendError when the server stopped
        answering /metrics (or did not finish in time) or sent a count that is not one."""
        t = time.monotonic()
        self._scrapes += 1
        text = self._conn.get_text(f"{self._conn.root}/metrics", Phrase("watcherr.doing.watching"))
        kind = self.kind
        prefix = kind.metrics_prefix
        names = tuple(n for n in (kind.tokens_counter, kind.active_gauge, kind.verify_counter, kind.requests_counter)
                      if n)
        gauges = kind.watch_gauges + ((kind.width_gauge,) if kind.width_gauge else ())
        # one pass over the text for every family read (the other lines are never parsed)
        samples = read_samples(text, ((spec_family(prefix),) if prefix else ()) + sum_families(names) + gauges)
        with self._server_values(Phrase("watcherr.doing.watching")):
            counters = draft_counters(samples, prefix) if prefix else None
            sums = count_sums(samples, names) if names else {}
            in_flight = kind.in_flight_tokens(self._poll)
        tokens = sums.get(kind.tokens_counter or "")
        verify, done = sums.get(kind.verify_counter or ""), sums.get(kind.requests_counter or "")
        width = gauge_means(samples, (kind.width_gauge,)).get(kind.width_gauge) if kind.width_gauge else None
        return Scrape(
            t=t,
            drafts=counters.drafts if counters else None,
            draft_tokens=counters.draft_tokens if counters else None,
            accepted=counters.accepted if counters else None,
            per_position=counters.per_position if counters else (),
            tokens=round(tokens) if tokens is not None else None,
            in_flight=in_flight,
            active=sums.get(kind.active_gauge or ""),
            gauges=gauge_means(samples, kind.watch_gauges) if kind.watch_gauges else {},
            notes=samples.notes() + (self.facts.notes if self._scrapes == 2 else ()),
            cadence=kind.counters_update,
            verify_calls=round(verify) if verify is not None else None,
            requests_done=round(done) if done is not None else None,
            width=width,
        )

    def requests(self) -> RequestsNow:
        """What the server tells per request now (llama-server's /slots; for the others, that
        they tell nothing to a watcher). Optional: a server that does not answer says nothing; one
        that lists more slots than any server has is a BackendError, as in detection."""
        with self._server_values(Phrase("watcherr.doing.slots")):
            return read_requests(self.kind.id, self._poll)

    def interrupt(self) -> None:
        """End a scrape in flight at once (any thread): stopping never waits on a stuck server."""
        self._conn.interrupt()

    def close(self) -> None:
        self._conn.close()
