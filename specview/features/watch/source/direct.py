"""A fleet of servers scraped directly: one `ServerWatch` (and one `WatchModel`) per target.

Each poll scrapes every target at once, on a pool of threads, and waits at most `deadline_s`
for all of them: a target that has not answered by then is DOWN for this poll (its request
is interrupted, so it never delays the next poll or the others), as is one that refuses, fails
or sends what cannot be used (its error, one line). A target that could not be detected yet
(down when the watch began) is detected again at each poll, and watched from then on; one
still busy with an earlier poll (a detection that takes several probes) is skipped, DOWN.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import suppress
from dataclasses import replace

from specview.backends.remote.timeouts import Timeouts
from specview.boundary.api_key import ApiKey
from specview.boundary.secrets import public_url
from specview.boundary.text import sanitize
from specview.features.watch.model import WatchModel
from specview.features.watch.model.fleet import InstanceReading, State
from specview.features.watch.source import ServerWatch
from specview.kernel.errors import SpecviewError, describe_error
from specview.texts.catalog import Phrase

MAX_WORKERS = 64  # scrapes in flight at once (a bigger fleet waits its turn within the deadline)
MAX_ERROR_CHARS = 300


class _Target:
    """One target: its watch once detected, its model, and the poll it has in flight."""

    def __init__(self, url: str, name: str) -> None:
        self.url, self.name = url, name
        self.watch: ServerWatch | None = None
        self.model = WatchModel(history=2)  # the fleet model keeps the history
        self.busy: Future[InstanceReading] | None = None
        self.lock = threading.Lock()


class DirectFleet:
    """A FleetSource over servers' own /metrics."""

    def __init__(self, urls: Sequence[str], *, api_key: ApiKey | None = None, key_env: str | None = None,
                 server: str | None = None, timeouts: Timeouts | None = None, deadline_s: float = 2.0) -> None:
        self._targets = [_Target(url, public_url(url) or url) for url in urls]
        self._api_key, self._key_env, self._server = api_key, key_env, server
        base = self._base_timeouts = timeouts or Timeouts()
        # every request of a poll ends by the poll's deadline (the watchdog closes its socket)
        self._timeouts = replace(base, connect=min(base.connect, deadline_s), request=min(base.request, deadline_s))
        self.deadline_s = deadline_s
        self._pool = ThreadPoolExecutor(max_workers=min(MAX_WORKERS, max(1, len(urls))),
                                        thread_name_prefix="specview-fleet")
        self._closed = threading.Event()

    @property
    def instances(self) -> tuple[str, ...]:
        return tuple(t.name for t in self._targets)

    def connect(self) -> None:
        """Detect every target at once, within the deadline (before the first poll, so its
        scrapes are not late by a detection); one that fails is detected again at each poll."""
        futures = [self._pool.submit(self._detect, t) for t in self._targets]
        wait(futures, timeout=self.deadline_s)

    def _detect(self, target: _Target) -> None:
        with target.lock:
            if target.watch is None and not self._closed.is_set():
                with suppress(SpecviewError):  # said by the poll that finds it still down
                    target.watch = ServerWatch(target.url, self._api_key, self._key_env, self._server,
                                               self._timeouts)

    def poll(self) -> tuple[InstanceReading, ...]:
        """Every target's reading, within the deadline."""
        started: dict[int, Future[InstanceReading]] = {}
        readings: dict[int, InstanceReading] = {}
        for k, target in enumerate(self._targets):
            if target.busy is not None and not target.busy.done():
                readings[k] = InstanceReading(target.name, State.DOWN, error=Phrase("watcherr.direct.busy"))
                continue
            target.busy = started[k] = self._pool.submit(self._read, target)
        done, _late = wait(started.values(), timeout=self.deadline_s)
        for k, future in started.items():
            if future in done:
                readings[k] = future.result()
            else:
                target = self._targets[k]
                if target.watch is not None:
                    target.watch.interrupt()  # ends the scrape now; its answer is not waited for
                readings[k] = InstanceReading(target.name, State.DOWN, engine=_engine(target),
                                              error=Phrase("watcherr.direct.late", seconds=self.deadline_s))
        return tuple(readings[k] for k in range(len(self._targets)))

    def _read(self, target: _Target) -> InstanceReading:
        """One target's poll, on a pool thread: detect it if need be, scrape, fold."""
        with target.lock:
            try:
                if target.watch is None:
                    if self._closed.is_set():
                        raise SpecviewError("watcherr.direct.closed")
                    target.watch = ServerWatch(target.url, self._api_key, self._key_env, self._server,
                                               self._timeouts)
                watch = target.watch
                with watch.one_poll():  # /slots asked once for the tokens in flight and the method
                    sample = target.model.feed(watch.scrape())
                    watch.describe()  # learns the method once the server names it (a request until then)
            except Exception as exc:  # noqa: BLE001 - any failure of one target is that target's DOWN
                # specview's own words stay a Phrase, put into the shown language (their fields are
                # safe already); a library's error is its bounded text
                said = exc.phrase if isinstance(exc, SpecviewError) else sanitize(describe_error(exc),
                                                                                  MAX_ERROR_CHARS, one_line=True)
                return InstanceReading(target.name, State.DOWN, engine=_engine(target), error=said)
            facts = watch.facts
            return InstanceReading(target.name, State.UP, engine=watch.kind.id, method=facts.method,
                                   gamma=facts.gamma, sample=sample)

    def open_server(self, instance: str) -> ServerWatch | None:
        """A watch of its own for one instance (the single-server screen's), with the command's
        full timeouts; None for a name that is none of the targets. Detection asks the server:
        not on the UI thread."""
        for target in self._targets:
            if target.name == instance:
                return ServerWatch(target.url, self._api_key, self._key_env, self._server, self._base_timeouts)
        return None

    def interrupt(self) -> None:
        """End every scrape in flight (any thread)."""
        for target in self._targets:
            if target.watch is not None:
                target.watch.interrupt()

    def close(self) -> None:
        self._closed.set()
        self.interrupt()
        self._pool.shutdown(wait=False, cancel_futures=True)
        for target in self._targets:
            if target.watch is not None:
                target.watch.close()


def _engine(target: _Target) -> str | None:
    return target.watch.kind.id if target.watch is not None else None
