"""The remote backend: any OpenAI-compatible server, with per-round acceptance where it tells it.

The constructor does everything that can fail before streaming (connect, list models, pick
or check the model, detect the dialect, read the server build), so connection refused, a
wrong port, a bad key on /v1/models and an unknown model exit before any UI starts.
`rounds()` streams one completion through the dialect on the caller's (worker) thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from specview.backends.base import BackendError, BackendInfo
from specview.backends.dialect_base import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_PROMPT,
    NO_SPEC_NOTE,
    Dialect,
    GenericDialect,
    RequestSettings,
)
from specview.backends.dialect_llama import LlamaDialect
from specview.backends.dialect_sglang import SglangDialect
from specview.backends.dialect_vllm import VllmDialect
from specview.backends.openai_stream import Connection, resolve_api_key
from specview.backends.prom_metrics import MetricsPoller, SpecCounters, parse_gauges, parse_spec_counters
from specview.backends.spec import RunSpec
from specview.core.events import Reconcile, Round, TokenStatus

DIALECTS = ("llama", "vllm", "sglang", "generic")
DEFAULT_READ_TIMEOUT_S = 60.0
MAX_STREAM_S = 900.0
_OWNERS = {"llamacpp": "llama", "vllm": "vllm", "sglang": "sglang"}
_PREFIX = {"llama": "llamacpp", "vllm": "vllm"}
SGLANG_GAUGES = ("sglang:spec_accept_length", "sglang:spec_accept_rate")
_REPLAY_CAVEAT = (
    "models that cannot roll back partially (hybrid attention such as Qwen3.5/3.6, SWA) make the "
    "server replay accepted prefixes, and how that is counted depends on the build"
)


@dataclass(frozen=True, slots=True)
class ServerFacts:
    """What detection learned about the server (never secrets)."""

    dialect: str
    build: str | None
    gamma: int | None
    speculating: bool
    has_metrics: bool


@dataclass(frozen=True, slots=True)
class CrossCheck:
    """specview's counts beside the server's /metrics deltas for the same request."""

    counted: SpecCounters
    server: SpecCounters

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
        if spec.server is not None and spec.server not in DIALECTS:
            raise BackendError(f"--server must be one of {', '.join(DIALECTS)}, got {spec.server!r}")
        self.read_timeout = read_timeout
        self.metrics_interval = 1.0
        # Called with every decoded stream event (tests and benchmarks tee the raw stream).
        self.event_hook: Callable[[dict[str, Any]], None] | None = None
        self.spec = spec
        self._conn = Connection(spec.url, resolve_api_key(spec.api_key_env), spec.api_key_env)
        try:
            owners = self._pick_model()
            self.facts = self._detect(owners)
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
        self._metrics_before: SpecCounters | None = None
        self._metrics_after: str | None = None

    # -- detection ------------------------------------------------------------------
    def _pick_model(self) -> dict[str, str]:
        listing = self._conn.get_json(f"{self._conn.api}/models", "listing models (GET /v1/models)")
        entries = listing.get("data") if isinstance(listing, dict) else None
        if not isinstance(entries, list):
            raise BackendError(f"{self._conn.root} answered GET /v1/models without a model list")
        owners = {
            str(e["id"]): str(e.get("owned_by", "")) for e in entries if isinstance(e, dict) and "id" in e
        }
        wanted = self.spec.model
        if wanted is None:
            if not owners:
                raise BackendError(f"{self._conn.root} lists no models; pass --model")
            self.model = next(iter(owners))
        elif wanted in owners or not owners:
            self.model = wanted
        else:
            offered = ", ".join(list(owners)[:8])
            raise BackendError(
                f"the server does not know model {wanted!r} (it offers: {offered}); see --model"
            )
        return owners

    def _detect(self, owners: dict[str, str]) -> ServerFacts:
        dialect = self.spec.server or _OWNERS.get(owners.get(self.model, "").lower())
        props = None
        if dialect in (None, "llama"):
            props = self._conn.probe_json(f"{self._conn.root}/props")
            if dialect is None and isinstance(props, dict) and "build_info" in props:
                dialect = "llama"
        version = None
        if dialect in (None, "vllm"):
            version = self._conn.probe_json(f"{self._conn.root}/version")
            if dialect is None and isinstance(version, dict) and "version" in version:
                dialect = "vllm"
        server_info = None
        if dialect in (None, "sglang"):
            server_info = (self._conn.probe_json(f"{self._conn.root}/get_server_info")
                           or self._conn.probe_json(f"{self._conn.root}/server_info"))
            if dialect is None and isinstance(server_info, dict) and "speculative_algorithm" in server_info:
                dialect = "sglang"
        dialect = dialect or "generic"
        if dialect == "llama":
            return self._llama_facts(props)
        if dialect == "vllm":
            counters = self._scrape(_PREFIX["vllm"])
            build = str(version.get("version")) if isinstance(version, dict) else None
            width = len(counters.per_position) if counters is not None else 0
            gamma = self.spec.gamma or (width or None)
            speculating = counters is not None or self.spec.gamma is not None
            return ServerFacts("vllm", build, gamma, speculating, counters is not None)
        if dialect == "sglang":
            info = server_info if isinstance(server_info, dict) else {}
            algorithm = info.get("speculative_algorithm")
            n_draft = info.get("speculative_num_draft_tokens")
            drafts = int(n_draft) - 1 if isinstance(n_draft, int) and n_draft > 1 else None
            gamma = self.spec.gamma or drafts
            build = str(info["version"]) if "version" in info else None
            speculating = bool(algorithm) or self.spec.gamma is not None
            return ServerFacts("sglang", build, gamma, speculating, self._metrics_text() is not None)
        return ServerFacts("generic", None, None, False, False)

    def _llama_facts(self, props: Any) -> ServerFacts:
        build, types = None, ""
        if isinstance(props, dict):
            build = str(props.get("build_info")) if props.get("build_info") else None
            settings = props.get("default_generation_settings")
            params = settings.get("params", {}) if isinstance(settings, dict) else {}
            types = str(params.get("speculative.types", "")) if isinstance(params, dict) else ""
        speculating = types not in ("", "none")
        has_metrics = self._metrics_text() is not None
        return ServerFacts("llama", build, self.spec.gamma, speculating, has_metrics)

    def _metrics_text(self) -> str | None:
        return self._conn.probe_text(f"{self._conn.root}/metrics")

    def _scrape(self, prefix: str) -> SpecCounters | None:
        text = self._metrics_text()
        return parse_spec_counters(text, prefix) if text is not None else None

    def _make_info(self) -> BackendInfo:
        f = self.facts
        exact: dict[str, bool]
        if f.dialect == "llama":
            exact = {"acceptance": True, "tau": True, "per_position": True, "tokens_per_second": True}
            checked = "; totals cross-checked with /metrics" if f.has_metrics else ""
            note = (f"llama-server build {f.build or 'unknown'}: every round rebuilt exactly from "
                    f"timings_per_token{checked}. Caveat: {_REPLAY_CAVEAT}")
        elif f.dialect in ("vllm", "sglang"):
            exact = {"acceptance": False, "tau": False, "per_position": False, "tokens_per_second": True}
            server = ("vLLM" if f.dialect == "vllm" else "SGLang") + (f" {f.build}" if f.build else "")
            note = (f"{server}: rounds inferred from stream chunks (one chunk per verify "
                    "step; steps merge when the client lags); exact totals come from the server at the end")
            if not f.speculating:
                note = f"{server}: {NO_SPEC_NOTE}"
        else:
            exact = {"tokens_per_second": False}
            note = NO_SPEC_NOTE
        return BackendInfo(
            backend="openai",
            label=f"{f.dialect} · {self.model.rstrip('/').rsplit('/', 1)[-1]}",
            gamma=f.gamma,
            temperature=self.settings.temperature,
            model=self.model,
            seed=self.settings.seed,
            exact=exact,
            note=" ".join(note.split()),
            reconciles=f.dialect == "vllm" and f.speculating,
        )

    @property
    def info(self) -> BackendInfo:
        return self._info

    # -- streaming ------------------------------------------------------------------
    def _make_dialect(self) -> Dialect:
        f, s = self.facts, self.settings
        if f.dialect == "llama":
            return LlamaDialect(s)
        if f.dialect == "vllm":
            return VllmDialect(s, f.gamma, f.speculating)
        if f.dialect == "sglang":
            return SglangDialect(s, f.gamma, f.speculating)
        return GenericDialect(s)

    def rounds(self, stop: threading.Event) -> Iterator[Round | Reconcile]:
        """Stream one completion; the rounds already yielded stand if it fails later."""
        dialect = self.dialect = self._make_dialect()
        prefix = _PREFIX.get(self.facts.dialect)
        if self.facts.has_metrics and prefix is not None:
            self._metrics_before = self._scrape(prefix)
        if self.facts.dialect in ("vllm", "sglang") and self.facts.has_metrics:
            self._poller = MetricsPoller(self._metrics_text, self.metrics_interval)
            self._poller.start()
        path, body = dialect.request()
        counted = _Counter()
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
                for rnd in dialect.feed(event, t):
                    counted.add(rnd)
                    yield rnd
                if stop.is_set():
                    return
        except BackendError:
            for rnd in dialect.finish(time.monotonic()):
                yield rnd
            raise
        finally:
            if self._poller is not None:
                self._poller.stop()
        for rnd in dialect.finish(time.monotonic()):
            counted.add(rnd)
            yield rnd
        if isinstance(dialect, VllmDialect) and dialect.reconciled is not None and dialect.mismatched_steps():
            # per_step_accepted came with the last chunk: redraw the request's rounds exactly
            yield Reconcile(0, tuple(_timed_like(dialect.reconciled, counted.shown)))
        self._after_stream(counted)

    def _after_stream(self, counted: _Counter) -> None:
        if self._poller is not None:
            self._metrics_after = self._metrics_text() or self._poller.latest
        dialect = self.dialect
        if isinstance(dialect, LlamaDialect) and not dialect.saw_timings:
            self._info = replace(self._info, exact={"tokens_per_second": True},
                                 note=f"this llama-server sent no per-token timings: {NO_SPEC_NOTE}")
        if self.facts.dialect != "llama":
            return
        if counted.max_drafted and counted.max_drafted != self._info.gamma:
            # what the server drafted (builds may ignore the per-request speculative.n_max)
            self._info = replace(self._info, gamma=counted.max_drafted)
        if self._metrics_before is None:
            return
        totals = counted.totals()
        server = self._settled_delta(totals)
        if server is not None:
            self.cross_check = CrossCheck(totals, server)

    def _settled_delta(self, expected: SpecCounters) -> SpecCounters | None:
        """The /metrics delta for this request; the server adds a slot's counts when it is
        released, just after the last chunk, so a few short retries may be needed."""
        assert self._metrics_before is not None
        delta = None
        for _ in range(10):
            now = self._scrape(_PREFIX["llama"])
            if now is None:
                return None
            delta = now.minus(self._metrics_before)
            if delta.draft_tokens >= expected.draft_tokens and delta.drafts >= expected.drafts:
                return delta
            time.sleep(0.1)
        return delta

    def server_counters(self) -> SpecCounters | None:
        """The server's /metrics counts since this stream began (vLLM, llama), if any."""
        prefix = _PREFIX.get(self.facts.dialect)
        if prefix is None or self._metrics_before is None:
            return None
        text = self._metrics_after or (self._poller.latest if self._poller is not None else None)
        text = text or self._metrics_text()
        now = parse_spec_counters(text, prefix) if text else None
        return now.minus(self._metrics_before) if now else None

    def server_gauges(self) -> dict[str, float]:
        """SGLang's batch-wide `sglang:spec_accept_length` / `spec_accept_rate` gauges, if scraped."""
        text = self._metrics_after or (self._poller.latest if self._poller is not None else None)
        return parse_gauges(text, SGLANG_GAUGES) if text else {}

    def close(self) -> None:
        if self._poller is not None:
            self._poller.stop()
        self._conn.close()


class _Counter:
    """The drafted / accepted totals of the rounds yielded, in /metrics terms."""

    def __init__(self) -> None:
        self.drafts = 0
        self.max_drafted = 0
        self.drafted = 0
        self.accepted = 0
        self.per_position: list[int] = []
        self.shown: list[Round] = []

    def add(self, rnd: Round) -> None:
        self.shown.append(rnd)
        if rnd.drafted <= 0:
            return
        self.drafts += 1
        self.max_drafted = max(self.max_drafted, rnd.drafted)
        self.drafted += rnd.drafted
        accepted = sum(1 for t in rnd.tokens if t.status is TokenStatus.ACCEPTED)
        self.accepted += accepted
        if len(self.per_position) < accepted:
            self.per_position.extend([0] * (accepted - len(self.per_position)))
        for k in range(accepted):
            self.per_position[k] += 1

    def totals(self) -> SpecCounters:
        return SpecCounters(self.drafts, self.drafted, self.accepted, tuple(self.per_position))


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
