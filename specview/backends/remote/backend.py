"""The remote backend: any OpenAI-compatible server, with per-round acceptance where it tells it.

The constructor does everything that can fail before streaming (connect, list models, pick
or check the model, detect the dialect, read the server build), so connection refused, a
wrong port, a bad key on /v1/models and an unknown model exit before any UI starts.
`rounds()` streams one completion through the dialect on the caller's (worker) thread.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from specview.backends.remote.client import Connection
from specview.backends.remote.dialect import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_PROMPT,
    Dialect,
    RequestSettings,
)
from specview.backends.remote.metrics import DraftCounters, MetricsPoller, parse_draft_counters, parse_gauges
from specview.backends.remote.registry import SERVER_KINDS, kind_by_id, kind_by_owner, server_ids
from specview.backends.remote.server_kind import ServerFacts, ServerKind
from specview.core.backend import BackendInfo
from specview.core.bounds import MAX_MODELS, Invalid
from specview.core.errors import BackendError
from specview.core.events import Calibration, Reconcile, Round, StreamItem
from specview.core.metrics import Metrics
from specview.core.runspec import RunSpec
from specview.core.text import shown

DEFAULT_READ_TIMEOUT_S = 60.0
MAX_STREAM_S = 900.0
SGLANG_GAUGES = ("sglang:spec_accept_length", "sglang:spec_accept_rate")


@dataclass(frozen=True, slots=True)
class CrossCheck:
    """specview's counts beside the server's /metrics deltas for the same request."""

    counted: DraftCounters
    server: DraftCounters

    @property
    def matches(self) -> bool:
        """Equal totals and equal per-position counts (positions never accepted count 0)."""
        diff = self.server.minus(self.counted)
        return diff.drafts == diff.draft_tokens == diff.accepted == 0 and not any(diff.per_position)


def make_openai_backend(spec: RunSpec) -> OpenAIBackend:
    """The remote backend for `--url` (raises BackendError with a clear message)."""
    if spec.read_timeout is not None:
        return OpenAIBackend(spec, read_timeout=spec.read_timeout)
    return OpenAIBackend(spec)


class OpenAIBackend:
    """Streams one completion from a remote server and yields its rounds."""

    def __init__(self, spec: RunSpec, *, read_timeout: float = DEFAULT_READ_TIMEOUT_S) -> None:
        if spec.url is None:
            raise BackendError("the remote backend needs --url")
        if spec.server is not None and kind_by_id(spec.server) is None:
            raise BackendError(f"--server must be one of {', '.join(server_ids())}, got {spec.server!r}")
        self.read_timeout = read_timeout
        self.metrics_interval = 1.0
        # Called with every decoded stream event (tests and benchmarks tee the raw stream).
        self.event_hook: Callable[[dict[str, Any]], None] | None = None
        self.spec = spec
        self._conn = Connection(spec.url, spec.api_key, spec.api_key_env)
        try:
            owners = self._pick_model()
            with self._server_values("detecting the server"):
                self.kind, self.facts = self._detect(owners)
        except BaseException:
            self._conn.close()
            raise
        self.settings = RequestSettings(
            model=self.model,
            prompt=spec.prompt or DEFAULT_PROMPT,
            raw=spec.raw,
            temperature=0.0 if spec.temperature is None else spec.temperature,
            seed=spec.seed,
            max_tokens=spec.max_tokens or DEFAULT_MAX_TOKENS,
            gamma=spec.gamma,
        )
        self._info = self._make_info()
        self.cross_check: CrossCheck | None = None
        self.dialect: Dialect | None = None
        self._poller: MetricsPoller | None = None
        self._metrics_before: DraftCounters | None = None
        self._metrics_after: str | None = None

    # -- detection ------------------------------------------------------------------
    @contextmanager
    def _server_values(self, what: str) -> Iterator[None]:
        """A value the server sent that cannot be used (bounds.Invalid) → one BackendError naming
        the server, what it was answering and the field."""
        try:
            yield
        except Invalid as exc:
            raise BackendError(f"{self._conn.root} sent a value specview cannot use while {what}: {exc}") from None

    def _pick_model(self) -> dict[str, str]:
        listing = self._conn.get_json(f"{self._conn.api}/models", "listing models (GET /v1/models)")
        entries = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(entries, list):
            raise BackendError(f"{self._conn.root} answered GET /v1/models without a model list")
        owners: dict[str, str] = {}
        for entry in entries[:MAX_MODELS]:  # ids that are not strings are not models we can ask for
            if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]:
                owner = entry.get("owned_by")
                owners[entry["id"]] = owner if isinstance(owner, str) else ""
        wanted = self.spec.model
        if wanted is None:
            if not owners:
                raise BackendError(f"{self._conn.root} lists no models; pass --model")
            self.model = next(iter(owners))
        elif wanted in owners or not owners:
            self.model = wanted
        else:
            offered = ", ".join(shown(model, 60) for model in list(owners)[:8])
            more = f" and {len(owners) - 8} more" if len(owners) > 8 else ""
            raise BackendError(
                f"the server does not know model {shown(wanted)} (it offers: {offered}{more}); see --model"
            )
        return owners

    def _detect(self, owners: dict[str, str]) -> tuple[ServerKind, ServerFacts]:
        """The server family (asked for, named by /v1/models, or probed in registry order)."""
        wanted = kind_by_id(self.spec.server) if self.spec.server else kind_by_owner(owners.get(self.model, ""))
        for kind in [wanted] if wanted is not None else SERVER_KINDS:
            identified = kind.identify(self._conn)
            if kind is wanted or kind.recognised(identified):
                return kind, kind.facts(self._conn, identified, self.spec.gamma)
        raise AssertionError("the registry ends with a family that recognises every server")

    def _metrics_text(self) -> str | None:
        return self._conn.probe_text(f"{self._conn.root}/metrics")

    def _scrape(self, prefix: str) -> DraftCounters | None:
        text = self._metrics_text()
        return parse_draft_counters(text, prefix) if text is not None else None

    def _make_info(self) -> BackendInfo:
        f = self.facts
        exact, note = self.kind.describe(f)
        return BackendInfo(
            backend="openai",
            label=f"{f.dialect} · {self.model.rstrip('/').rsplit('/', 1)[-1]}",
            gamma=f.gamma,
            temperature=self.settings.temperature,
            model=self.model,
            seed=self.settings.seed,
            exact=exact,
            notes=(note,),
            reconciles=self.kind.reconciles and f.speculating,
        )

    @property
    def info(self) -> BackendInfo:
        return self._info

    # -- streaming ------------------------------------------------------------------
    def rounds(self, stop: threading.Event) -> Iterator[StreamItem]:
        """Stream one completion; the rounds already yielded stand if it fails later.

        A baseline given on the command line (or measured by a paired plain run) comes first.
        """
        if self.spec.baseline_tps:
            yield Calibration(self.spec.baseline_basis, 1.0 / self.spec.baseline_tps)
        dialect = self.dialect = self.kind.dialect(self.settings, self.facts)
        prefix = self.kind.metrics_prefix
        if self.facts.has_metrics and prefix is not None:
            with self._server_values("reading /metrics"):
                self._metrics_before = self._scrape(prefix)
        if not self.kind.exact_per_round and self.facts.has_metrics:
            self._poller = MetricsPoller(self._metrics_text, self.metrics_interval)
            self._poller.start()
        path, body = dialect.request()
        counted = _Counted()
        events = self._conn.stream(
            f"{self._conn.root}{path}", body, stop,
            read_timeout=self.read_timeout,
            max_events=4 * self.settings.max_tokens + 64,
            max_seconds=MAX_STREAM_S,
            model=self.model,
        )
        try:
            for event, t in events:
                if self.event_hook is not None:
                    self.event_hook(event)
                with self._server_values(f"streaming ({dialect.name} chunk {counted.chunks + 1})"):
                    made = dialect.feed(event, t)
                counted.chunks += 1
                for rnd in made:
                    counted.add(rnd)
                    yield rnd
                if stop.is_set():
                    return
        except BackendError:
            with contextlib.suppress(Invalid):  # the rounds before the failure still stand
                yield from dialect.finish(time.monotonic())
            raise
        finally:
            if self._poller is not None:
                self._poller.stop()
        with self._server_values(f"ending the stream ({dialect.name})"):
            rest = dialect.finish(time.monotonic())
            exact = dialect.exact_rounds()
        for rnd in rest:
            counted.add(rnd)
            yield rnd
        if exact is not None:  # the server told the exact grouping at the end: redraw the request
            yield Reconcile(0, tuple(_timed_like(exact, counted.shown)))
        with self._server_values("reading /metrics after the stream"):
            self._after_stream(counted)

    def _after_stream(self, counted: _Counted) -> None:
        if self._poller is not None:
            self._metrics_after = self._metrics_text() or self._poller.latest
        missing = self.dialect.missing_statistics() if self.dialect is not None else None
        if missing is not None:
            self._info = replace(self._info, exact={"tokens_per_second": True}, notes=(missing,))
        if not self.kind.exact_per_round:
            return
        drafted = counted.metrics.max_drafted
        if drafted and drafted != self._info.gamma:
            # what the server drafted (builds may ignore the per-request speculative.n_max)
            self._info = replace(self._info, gamma=drafted)
        if self._metrics_before is None:
            return
        totals = counted.totals()
        server = self._settled_delta(totals)
        if server is not None:
            self.cross_check = CrossCheck(totals, server)

    def _settled_delta(self, expected: DraftCounters) -> DraftCounters | None:
        """The /metrics delta for this request; the server adds a slot's counts when it is
        released, just after the last chunk, so a few short retries may be needed."""
        assert self._metrics_before is not None
        delta = None
        for _ in range(10):
            assert self.kind.metrics_prefix is not None
            now = self._scrape(self.kind.metrics_prefix)
            if now is None:
                return None
            delta = now.minus(self._metrics_before)
            if delta.draft_tokens >= expected.draft_tokens and delta.drafts >= expected.drafts:
                return delta
            time.sleep(0.1)
        return delta

    def server_counters(self) -> DraftCounters | None:
        """The server's /metrics counts since this stream began (vLLM, llama), if any."""
        prefix = self.kind.metrics_prefix
        if prefix is None or self._metrics_before is None:
            return None
        text = self._metrics_after or (self._poller.latest if self._poller is not None else None)
        text = text or self._metrics_text()
        with self._server_values("reading /metrics"):
            now = parse_draft_counters(text, prefix) if text else None
        return now.minus(self._metrics_before) if now else None

    def server_gauges(self) -> dict[str, float]:
        """SGLang's batch-wide `sglang:spec_accept_length` / `spec_accept_rate` gauges, if scraped."""
        text = self._metrics_after or (self._poller.latest if self._poller is not None else None)
        return parse_gauges(text, SGLANG_GAUGES) if text else {}

    def interrupt(self) -> None:
        """Unblock a stream being read (a stalled server), so that stopping is prompt."""
        self._conn.interrupt()

    def close(self) -> None:
        if self._poller is not None:
            self._poller.stop(wait=False)
        self._conn.close()


class _Counted:
    """The rounds yielded so far and their counts, folded by the same Metrics the screen uses."""

    def __init__(self) -> None:
        self.chunks = 0  # stream chunks read (named in an error about one)
        self.metrics = Metrics()
        self.shown: list[Round] = []

    def add(self, rnd: Round) -> None:
        self.shown.append(rnd)
        self.metrics.add(rnd)

    def totals(self) -> DraftCounters:
        """The totals in /metrics terms."""
        m = self.metrics
        return DraftCounters(m.drafting_rounds, m.drafted, m.accepted, m.accepted_by_position)


def _timed_like(exact: list[Round], shown: list[Round]) -> list[Round]:
    """Give regrouped rounds the arrival times of the streamed rounds that carried their
    last token (the regrouping knows the grouping, not the clock)."""
    ends: list[tuple[int, float, float | None]] = []
    total = 0
    for rnd in shown:
        total += rnd.emitted
        ends.append((total, rnd.t_wall, rnd.t_verify_s))
    out, done, at = [], 0, 0
    for rnd in exact:
        done += rnd.emitted
        while at < len(ends) - 1 and ends[at][0] < done:
            at += 1
        t_wall, t_verify = (ends[at][1], ends[at][2]) if ends else (rnd.t_wall, rnd.t_verify_s)
        out.append(replace(rnd, t_wall=t_wall, t_verify_s=t_verify))
    return out
