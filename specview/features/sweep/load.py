"""The load sweep's client: N concurrent clients against a server, tokens and time measured.

Each client sends `requests` completions one after another (non-streamed `/v1/completions`,
T = 0, the same prompt, a different seed each); aggregate tok/s = every completion token ÷
the wall time from the first send to the last answer; per-request tok/s = the mean of each
request's completion tokens ÷ its latency. One warm-up request comes first (prompt cache,
lazy allocations). Errors end the sweep with the server's message (BackendError).

Whether a server drafted, and how much it accepted, comes from the server's own counts: per
request where it reports them (llama-server's `timings.draft_n` / `draft_n_accepted` in the
answer; a `timings` without them means nothing was drafted), else the difference of its
`/metrics` speculative counters (`<prefix>:spec_decode_*`, any family the registry knows)
across the run; else unknown (None).
"""

from __future__ import annotations

import statistics
import threading
import time
from dataclasses import dataclass
from typing import Any

from specview.backends.remote.client import Connection
from specview.backends.remote.dialect import counter
from specview.backends.remote.metrics import DraftCounters, parse_draft_counters
from specview.backends.remote.registry import server_kinds
from specview.backends.remote.server_values import server_values
from specview.backends.remote.timeouts import Timeouts
from specview.boundary.api_key import ApiKey
from specview.boundary.bounds import MAX_ROUND_TOKENS, Invalid
from specview.features.sweep.model import MAX_CONCURRENCY, LoadPoint
from specview.kernel.backend import Note
from specview.kernel.errors import BackendError, CliError


@dataclass(frozen=True, slots=True)
class Answer:
    """One completion: its tokens, latency, and the drafts the server reported for it (None: not told)."""

    tokens: int
    latency: float
    drafted: int | None = None
    accepted: int | None = None


@dataclass(frozen=True, slots=True)
class LoadResult:
    """One configuration at one concurrency."""

    concurrency: int
    requests: int
    tokens: int
    wall_s: float
    per_request: tuple[float, ...]  # tok/s of each request
    drafted: int | None = None  # over every request (None: the server told neither per request nor in /metrics)
    accepted: int | None = None

    @property
    def tokens_per_second(self) -> float:
        return self.tokens / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def mean_per_request(self) -> float:
        return sum(self.per_request) / len(self.per_request) if self.per_request else 0.0


class LoadClient:
    """One server under test."""

    def __init__(self, url: str, api_key: ApiKey | None = None, key_env: str | None = None,
                 model: str | None = None, timeouts: Timeouts | None = None) -> None:
        self._conn = Connection(url, api_key, key_env, timeouts)
        self._timeout = self._conn.timeouts.stream  # a whole completion, not streamed
        try:
            served = self._conn.served_models()
            if model is None and not served:
                raise BackendError("sweeperr.no_models", root=self._conn.root)
            self.model = model or next(iter(served))
        except BaseException:
            self._conn.close()
            raise
        self.root = self._conn.root
        self._metrics_fallback = False  # set once an answer comes without per-request counts

    def one(self, prompt: str, max_tokens: int, seed: int) -> Answer:
        """One request: its completion tokens, latency and reported drafts."""
        body = {"model": self.model, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0,
                "seed": seed, "stream": False}
        start = time.monotonic()
        reply = self._conn.post_json(f"{self._conn.api}/completions", body, "sending the load",
                                     timeout=self._timeout, model=self.model)
        latency = time.monotonic() - start
        usage = reply.get("usage") if isinstance(reply, dict) else None
        with server_values(self.root, "sending the load"):
            tokens = counter(usage.get("completion_tokens"), "usage.completion_tokens") if isinstance(usage, dict) \
                else None
        if tokens is None:
            raise BackendError("sweeperr.no_usage", root=self.root)
        if tokens > max_tokens + MAX_ROUND_TOKENS:  # a last round may overshoot a little, never more
            raise BackendError("sweeperr.too_many_tokens", root=self.root, tokens=tokens,
                               max_tokens=max_tokens)
        drafted, accepted = self._reported_drafts(reply)
        if drafted is None:  # from now on each run scrapes /metrics before and after (the warm-up sets this)
            self._metrics_fallback = True
        return Answer(tokens, latency, drafted, accepted)

    def _reported_drafts(self, reply: Any) -> tuple[int | None, int | None]:
        """(drafted, accepted) from llama-server's `timings` (absent counters: no draft was made),
        (None, None) from a server without them."""
        timings = reply.get("timings") if isinstance(reply, dict) else None
        if not isinstance(timings, dict):
            return None, None
        with server_values(self.root, "sending the load"):
            drafted = counter(timings.get("draft_n"), "timings.draft_n") or 0
            accepted = counter(timings.get("draft_n_accepted"), "timings.draft_n_accepted") or 0
            if accepted > drafted:
                raise Invalid(f"timings.draft_n_accepted ({accepted}) is larger than timings.draft_n ({drafted})")
        return drafted, accepted

    def _metrics_counters(self) -> DraftCounters | None:
        """The server's cumulative speculative counters from /metrics, for the first family the
        registry knows that it publishes; None without /metrics or such counters."""
        text = self._conn.probe_text(f"{self.root}/metrics")
        if text is None:
            return None
        with server_values(self.root, "reading /metrics"):
            for kind in server_kinds():
                if kind.metrics_prefix:
                    found = parse_draft_counters(text, kind.metrics_prefix)
                    if found is not None:
                        return found
        return None

    def run(self, concurrency: int, requests: int, prompt: str, max_tokens: int) -> LoadResult:
        """`concurrency` clients, `requests` each."""
        if not 1 <= concurrency <= MAX_CONCURRENCY:
            raise BackendError("sweeperr.concurrency", most=MAX_CONCURRENCY, got=concurrency)
        results: list[Answer] = []
        errors: list[BaseException] = []
        lock = threading.Lock()

        def client(worker: int) -> None:
            for k in range(requests):
                try:
                    got = self.one(prompt, max_tokens, seed=worker * 1000 + k)
                except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                    with lock:
                        errors.append(exc)
                    return
                with lock:
                    results.append(got)

        threads = [threading.Thread(target=client, args=(w,), daemon=True) for w in range(concurrency)]
        before = self._metrics_counters() if self._metrics_fallback else None
        start = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - start
        if errors:
            error = errors[0]
            raise error if isinstance(error, BackendError) else BackendError("sweeperr.failed", reason=str(error))
        per_request = tuple(a.tokens / a.latency for a in results if a.latency > 0)
        drafted, accepted = self._drafts(results, before)
        return LoadResult(concurrency, len(results), sum(a.tokens for a in results), wall, per_request,
                          drafted, accepted)

    def _drafts(self, results: list[Answer], before: DraftCounters | None) -> tuple[int | None, int | None]:
        """Σ the per-request counts when every answer had them, else the /metrics difference."""
        if results and all(a.drafted is not None for a in results):
            return sum(a.drafted or 0 for a in results), sum(a.accepted or 0 for a in results)
        after = self._metrics_counters() if before is not None else None
        if before is None or after is None:
            return None, None
        moved = after.minus(before)
        if moved.draft_tokens < 0 or moved.accepted < 0:  # the server restarted meanwhile: not a count
            return None, None
        return moved.draft_tokens, moved.accepted

    def close(self) -> None:
        self._conn.close()


def _total(values: list[int | None]) -> int | None:
    return None if any(v is None for v in values) else sum(v or 0 for v in values)


def load_point(on: LoadClient, off: LoadClient, level: int, repeats: int, requests: int, prompt: str,
               max_tokens: int) -> LoadPoint:
    """One concurrency, each configuration `repeats` times, on and off in turn (a change in the
    machine's load then touches both), checked: `--on` must have drafted, `--off` must not."""
    got_on: list[LoadResult] = []
    got_off: list[LoadResult] = []
    for _ in range(repeats):
        got_on.append(on.run(level, requests, prompt, max_tokens))
        got_off.append(off.run(level, requests, prompt, max_tokens))
    point = LoadPoint(
        level, statistics.fmean(r.tokens_per_second for r in got_on),
        statistics.fmean(r.tokens_per_second for r in got_off),
        statistics.fmean(r.mean_per_request for r in got_on), statistics.fmean(r.mean_per_request for r in got_off),
        sum(r.requests for r in got_on), tuple(r.tokens_per_second for r in got_on),
        tuple(r.tokens_per_second for r in got_off), _total([r.drafted for r in got_on]),
        _total([r.accepted for r in got_on]), _total([r.drafted for r in got_off]),
        _total([r.accepted for r in got_off]))
    check_drafting(point, on.root, off.root)
    return point


def check_drafting(point: LoadPoint, on_root: str, off_root: str) -> None:
    """Refuse a pair that does not compare speculation with plain decoding: an `--off` server
    that drafted, an `--on` server that drafted nothing (counts unknown: not refused, the sweep
    says so in a note)."""
    if point.off_drafted:
        raise CliError("verdict.error.off_drafted", url=off_root, drafted=point.off_drafted,
                       accepted=point.off_accepted, clients=point.concurrency)
    if point.on_drafted == 0:
        raise CliError("verdict.error.on_idle", url=on_root, clients=point.concurrency, requests=point.requests)


def unchecked_notes(points: tuple[LoadPoint, ...], on_root: str, off_root: str) -> tuple[Note, ...]:
    """A note for each side whose drafts no server count told (neither per request nor /metrics)."""
    notes = []
    for side, root, counts in (("on", on_root, [p.on_drafted for p in points]),
                               ("off", off_root, [p.off_drafted for p in points])):
        if any(c is None for c in counts):
            notes.append(Note("load_drafts_unknown", {"side": f"--{side}", "url": root}))
    return tuple(notes)
