"""A server family described in one place: how to recognise it, what it reports, its dialect,
and how to run it for real.

Adding an engine = one module that defines a ServerKind instance (`registry.py` finds it; an
installed package adds one through the `specview.server_kinds` entry-point group); the remote
backend, `watch`, the run-it-for-real screen and the command line (`--server`) read the registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from specview.backends.remote.dialect import Dialect, RequestSettings
from specview.features.live.real_run import ServerProgram
from specview.kernel.backend import Exact, Note

# when a family's /metrics counters move (`ServerKind.counters_update`; texts: `watch.counters_update.<value>`)
AT_STEP = "step"  # at every engine step, mid-request (vLLM)
AT_REQUEST_END = "request_end"  # only when a request ends: a long request is one step at its end
DIFFUSION_METHOD = "diffusion LM (not speculative)"  # the method a diffusion LM is shown with, as kinds name theirs
LAST = 1000  # the priority of `generic`, which recognises every server: every other kind probes before it

INFERRED: dict[str, bool] = {Exact.ACCEPTANCE: False, Exact.TAU: False, Exact.PER_POSITION: False,
                             Exact.TOKENS_PER_SECOND: True}
EXACT: dict[str, bool] = {Exact.ACCEPTANCE: True, Exact.TAU: True, Exact.PER_POSITION: True,
                          Exact.TOKENS_PER_SECOND: True}


@dataclass(frozen=True, slots=True)
class ServerFacts:
    """What detection learned about the server (never secrets)."""

    dialect: str
    build: str | None
    gamma: int | None
    speculating: bool
    has_metrics: bool
    method: str | None = None  # what the server says it drafts with, e.g. "MTP (draft-mtp)" (sanitized)
    notes: tuple[Note, ...] = ()  # what detection found that changes what the numbers mean (lossy, not a speculator)


class Probe(Protocol):
    """What detection may ask of a server (the remote Connection provides it)."""

    root: str

    def probe_json(self, url: str) -> Any | None: ...

    def probe_text(self, url: str) -> str | None: ...


class ServerKind:
    """One server family. Subclasses override what differs; the defaults describe `generic`.

    `priority` orders detection (lower probes first; no two kinds share one), so a new kind must
    set its own below LAST: one left at generic's is refused by the registry, never probed after it.
    """

    id = "generic"
    title = "OpenAI-compatible server"
    priority = LAST
    engine: ServerProgram | None = None  # how presets run it for real (their `[run]` key is `id`)
    owners: tuple[str, ...] = ()  # /v1/models `owned_by` values that name this family
    metrics_prefix: str | None = None  # `<prefix>:spec_decode_*` counters in /metrics
    tokens_counter: str | None = None  # /metrics counter of generated tokens (all requests)
    active_gauge: str | None = None  # /metrics gauge of requests running now
    watch_gauges: tuple[str, ...] = ()  # other /metrics gauges `specview watch` shows as they are
    counters_update: str | None = None  # AT_STEP or AT_REQUEST_END (None: not known)
    # counters of a family without draft counters, for τ over the requests that ended:
    # (Δgenerated − Δrequests) ÷ Δverify steps (each request's first token comes from prefill)
    verify_counter: str | None = None  # verify steps, counted when a request ends
    requests_counter: str | None = None  # requests finished
    width_gauge: str | None = None  # the configured draft width the family's accept-rate gauge divides by
    # a counter a diffusion LM exports through the speculative path: a server with it and no draft
    # counters is a diffusion LM (its method DIFFUSION_METHOD), not a speculator
    diffusion_counter: str | None = None
    reconciles = False  # may end a request with exact rounds (a Reconcile)
    exact_per_round = False  # every streamed round is exact (its totals can be checked against /metrics)

    def identify(self, conn: Probe) -> Any | None:
        """The JSON of the endpoint that shows the server is of this family, else None."""
        return None

    def recognised(self, identified: Any | None) -> bool:
        """Whether `identify`'s answer shows the server is of this family."""
        return True

    def facts(self, conn: Probe, identified: Any | None, gamma: int | None) -> ServerFacts:
        """Build, γ and whether it speculates, from what `identify` returned (or None)."""
        return ServerFacts(self.id, None, None, False, False)

    def learn_method(self, conn: Probe) -> str | None:
        """The speculative method, for a family that names it only once a request was served
        (asked again while it is unknown); None where the family never names it."""
        return None

    def describe(self, facts: ServerFacts) -> tuple[dict[str, bool], Note]:
        """Which numbers are exact, and the note the side panel and recordings show."""
        return {Exact.TOKENS_PER_SECOND: False}, Note("no_spec")

    def dialect(self, settings: RequestSettings, facts: ServerFacts) -> Dialect:
        """The stream reader for one request."""
        from specview.backends.remote.kinds.generic import GenericDialect

        return GenericDialect(settings)

    def in_flight_tokens(self, conn: Probe) -> int | None:
        """Tokens generated so far by requests still running, when the server tells (counters
        often grow only when a request ends)."""
        return None

    def has_metrics(self, conn: Probe) -> bool:
        return conn.probe_text(f"{conn.root}/metrics") is not None

    def server_name(self, facts: ServerFacts) -> str:
        return self.title + (f" {facts.build}" if facts.build else "")
