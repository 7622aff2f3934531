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
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import Any

from specview.backends.remote.client import Connection
from specview.backends.remote.dialect import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_PROMPT,
    Dialect,
    RequestSettings,
)
from specview.backends.remote.metrics import (
    DraftCounters,
    MetricsPoller,
    draft_counters,
    read_samples,
    spec_family,
)
from specview.backends.remote.options import remote_options
from specview.backends.remote.registry import checked_kind, detect, kind_by_owner
from specview.backends.remote.server_values import learned_method, server_values
from specview.backends.remote.text_budget import TextBudget
from specview.backends.remote.timeouts import Timeouts
from specview.boundary.bounds import Invalid
from specview.boundary.text import shown
from specview.kernel.backend import BackendInfo, BackendKind, Exact, Note
from specview.kernel.errors import BackendError
from specview.kernel.events import Calibration, Reconcile, Round, StreamItem
from specview.kernel.metrics import Metrics
from specview.kernel.runspec import RunSpec
from specview.kernel.totals import CrossChecked
from specview.kernel.unmeasured import TEXT_CUT_NOTE, server_gamma
from specview.texts.catalog import Phrase


@dataclass(frozen=True, slots=True)
class CrossCheck:
    """specview's counts beside the server's /metrics deltas for the same request."""

    counted: DraftCounters
    server: DraftCounters

    @property
    def totals_match(self) -> bool:
        """Equal rounds drafted, tokens drafted and tokens accepted."""
        diff = self.server.minus(self.counted)
        return diff.drafts == diff.draft_tokens == diff.accepted == 0

    @property
    def matches(self) -> bool:
        """Equal totals and equal per-position counts (positions never accepted count 0)."""
        return self.totals_match and not any(self.server.minus(self.counted).per_position)

    def result(self) -> CrossChecked:
        """What the check found, as the stream item the side panel, recordings and `bench --json` read."""
        diff = self.server.minus(self.counted)
        return CrossChecked("/metrics", self.counted.draft_tokens, self.counted.accepted,
                            (diff.drafts, diff.draft_tokens, diff.accepted), diff.per_position)


CHECK_UNREAD = Note("cross_check_unread")


def make_openai_backend(spec: RunSpec) -> OpenAIBackend:
    """The remote backend for `--url` (raises BackendError with a clear message)."""
    return OpenAIBackend(spec)


def timeouts_of(spec: RunSpec, read_timeout: float | None = None) -> Timeouts:
    """The spec's timeouts (the defaults where it sets none); `read_timeout` overrides its own."""
    own = remote_options(spec)
    return Timeouts.given(connect=own.connect_timeout, request=own.request_timeout,
                          read=read_timeout if read_timeout is not None else own.read_timeout,
                          stream=own.stream_timeout)


class OpenAIBackend:
    """Streams one completion from a remote server and yields its rounds."""

    def __init__(self, spec: RunSpec, *, read_timeout: float | None = None) -> None:
        self.own = own = remote_options(spec)
        if own.url is None:
            raise BackendError("backenderr.remote.no_url")
        forced = checked_kind(own.server)
        self.timeouts = timeouts_of(spec, read_timeout)
        self.metrics_interval = 1.0
        # Called with every decoded stream event (tests and benchmarks tee the raw stream).
        self.event_hook: Callable[[dict[str, Any]], None] | None = None
        self.spec = spec
        self._conn = Connection(own.url, spec.api_key, spec.api_key_env, self.timeouts)
        try:
            owners = self._pick_model()
            with self._server_values(Phrase("backenderr.doing.detecting")):
                wanted = forced or kind_by_owner(owners.get(self.model, ""))
                self.kind, self.facts = detect(self._conn, wanted, spec.gamma)
        except BaseException:
            self._conn.close()
            raise
        self.settings = RequestSettings(
            model=self.model,
            prompt=spec.prompt or DEFAULT_PROMPT,
            raw=own.raw,
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
    def _server_values(self, what: str | Phrase) -> AbstractContextManager[None]:
        return server_values(self._conn.root, what)

    def _pick_model(self) -> dict[str, str]:
        owners = self._conn.served_models()
        wanted = self.own.model
        if wanted is None:
            if not owners:
                raise BackendError("backenderr.remote.no_models", root=self._conn.root)
            self.model = next(iter(owners))
        elif wanted in owners or not owners:
            self.model = wanted
        else:
            offered = ", ".join(shown(model, 60) for model in list(owners)[:8])
            more = Phrase("backenderr.remote.and_more", more=len(owners) - 8) if len(owners) > 8 else ""
            raise BackendError("backenderr.remote.unknown_model", model=shown(wanted), offered=offered, more=more)
        return owners

    def _metrics_text(self) -> str | None:
        return self._conn.probe_text(f"{self._conn.root}/metrics")

    def _scrape(self, prefix: str) -> DraftCounters | None:
        text = self._metrics_text()
        return self._counters(text, prefix) if text is not None else None

    def _counters(self, text: str, prefix: str) -> DraftCounters | None:
        """The counters in a scrape; lines skipped (too long, too many) become a note of the run."""
        samples = read_samples(text, (spec_family(prefix),))
        skipped = samples.notes()
        if skipped:
            kept = tuple(n for n in self._info.notes if not n.id.startswith("metrics_"))
            self._info = replace(self._info, notes=kept + skipped)
        return draft_counters(samples, prefix)

    def _make_info(self) -> BackendInfo:
        f = self.facts
        exact, note = self.kind.describe(f)
        return BackendInfo(
            backend=BackendKind.REMOTE,
            label=" · ".join(filter(None, (f.dialect, f.method, self.model.rstrip("/").rsplit("/", 1)[-1]))),
            gamma=f.gamma,
            temperature=self.settings.temperature,
            model=self.model,
            seed=self.settings.seed,
            exact=exact,
            notes=((note, Note("server_method", {"method": f.method})) if f.method else (note,)) + f.notes,
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
        if self.own.baseline_tps:
            yield Calibration(self.own.baseline_basis, 1.0 / self.own.baseline_tps)
        self._forget_cross_check()
        budget = TextBudget()  # this request's token text (text_budget.py)
        self._said_cut(budget)
        dialect = self.dialect = self.kind.dialect(self.settings, self.facts)
        prefix = self.kind.metrics_prefix
        if self.facts.has_metrics and prefix is not None:
            with self._server_values(Phrase("backenderr.doing.metrics")):
                self._metrics_before = self._scrape(prefix)
        if not self.kind.exact_per_round and self.facts.has_metrics:
            self._poller = MetricsPoller(self._metrics_text, self.metrics_interval)
            self._poller.start()
        path, body = dialect.request()
        counted = _Counted()
        events = self._conn.stream(
            f"{self._conn.root}{path}", body, stop,
            read_timeout=self.timeouts.read,
            max_events=4 * self.settings.max_tokens + 64,
            max_seconds=self.timeouts.stream,
            model=self.model,
        )
        first = True
        try:
            for event, t in events:
                if first:
                    first = False
                    self._learn_method()
                if self.event_hook is not None:
                    self.event_hook(event)
                cut = budget.cut
                budget.clip(event)
                if budget.cut != cut:
                    self._said_cut(budget)
                chunk = Phrase("backenderr.doing.chunk", dialect=dialect.name, chunk=counted.chunks + 1)
                with self._server_values(chunk):
                    made = dialect.feed(event, t)
                counted.chunks += 1
                for rnd in made:
                    counted.add(rnd)
                    yield rnd
                if stop.is_set():
                    return
                if self._poller is not None and self._poller.error is not None:
                    raise self._poller.error  # /metrics answered what no server should (decode.py)
        except BackendError:
            with contextlib.suppress(Invalid):  # the rounds before the failure still stand
                yield from dialect.finish(time.monotonic())
            raise
        finally:
            if self._poller is not None:
                self._poller.stop()
        if stop.is_set():  # stopped (a stream cut before its headers ends quietly): ask the server nothing more
            return
        with self._server_values(Phrase("backenderr.doing.ending", dialect=dialect.name)):
            rest = dialect.finish(time.monotonic())
            exact = dialect.exact_rounds()
            totals = dialect.request_totals()
        for rnd in rest:
            counted.add(rnd)
            yield rnd
        if exact is not None:  # the server told the exact grouping at the end: redraw the request
            yield Reconcile(0, tuple(_timed_like(exact, counted.shown)))
            counted = _Counted()
            for rnd in exact:
                counted.add(rnd)
        if totals is not None:  # after every round of the request: they close it
            yield totals
        with self._server_values(Phrase("backenderr.doing.metrics_after")):
            check = self._after_stream(counted, exact is not None or self.kind.exact_per_round)
        self._said_cut(budget)  # settling the notes after the stream starts them afresh
        if check is not None:
            yield check

    def _said_cut(self, budget: TextBudget) -> None:
        """The run's note on the token text its request cut (none before anything was cut)."""
        notes = tuple(n for n in self._info.notes if n.id != TEXT_CUT_NOTE)
        cut = budget.note()
        if cut is not None or len(notes) != len(self._info.notes):
            self._info = replace(self._info, notes=(*notes, cut) if cut is not None else notes)

    def _forget_cross_check(self) -> None:
        """A new request (a restart reuses the backend) is checked afresh."""
        self.cross_check = None
        if CHECK_UNREAD in self._info.notes:
            self._info = replace(self._info, notes=tuple(n for n in self._info.notes if n != CHECK_UNREAD))

    def _learn_method(self) -> None:
        """Some servers name their speculative method only while or after serving a request
        (llama-server's /slots): ask again once the stream has started."""
        learned = learned_method(self.kind, self._conn, self.facts)
        if learned is not None:
            self.facts = learned
            info = self._make_info()
            self._info = replace(self._info, label=info.label, notes=info.notes)

    def _after_stream(self, counted: _Counted, exact: bool) -> CrossChecked | None:
        """Settle the note, γ and the cross-check with /metrics once a request ended; `exact`:
        `counted` holds exact rounds (streamed exactly, or reconciled from the server's own).
        Returns what the cross-check found, when there was one."""
        self._learn_method()
        if self._poller is not None:
            self._metrics_after = self._metrics_text() or self._poller.latest
        missing = self.dialect.missing_statistics() if self.dialect is not None else None
        if missing is not None:
            self._info = replace(self._info, exact={Exact.TOKENS_PER_SECOND: True}, notes=(missing,))
        if not exact:
            return None
        drafted = counted.metrics.max_drafted
        if drafted and drafted != self._info.gamma:
            # what the server drafted (builds may ignore the per-request speculative.n_max), said as its
            self._info = server_gamma(self._info, drafted, self.settings.gamma)
        if self._metrics_before is None:
            return None
        totals = counted.totals()
        server = self._settled_delta(totals)
        if server is None:  # the side panel says so: its note promised a check
            self._info = replace(self._info, notes=(*self._info.notes, CHECK_UNREAD))
            return None
        self.cross_check = CrossCheck(totals, server)
        return self.cross_check.result()

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
        with self._server_values(Phrase("backenderr.doing.metrics")):
            now = self._counters(text, prefix) if text else None
        return now.minus(self._metrics_before) if now else None

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
