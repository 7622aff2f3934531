"""What `specview doctor` sees of one server in its window: the watch's own scrapes, /props, and
(with `--probe N`) the timings of its own few requests.

Nothing here sends a prompt unless `probes` > 0. The server is scraped through the watch's
ServerWatch (features/watch/source/), folded by the watch's WatchModel, which checks every
counter invariant; a scrape that fails mid-window ends the window (what was seen so far stands,
and the failure is one line in `errors`). The window is bounded (MAX_WINDOW_S) and so are the
probes (MAX_PROBES, each with its own deadline).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from specview.backends.remote.client import Connection
from specview.backends.remote.timeouts import Timeouts
from specview.boundary.api_key import ApiKey
from specview.boundary.bounds import MAX_BODY_BYTES
from specview.boundary.secrets import public_url
from specview.features.doctor.probe import ProbeResult, probe_once
from specview.features.watch.model import Scrape, WatchModel, WatchSample
from specview.features.watch.model.by_load import LoadTable
from specview.features.watch.model.invariants import Violation
from specview.features.watch.source import ServerWatch
from specview.kernel.context_acceptance import ContextAcceptance
from specview.kernel.errors import SpecviewError
from specview.texts.catalog import Phrase

MAX_WINDOW_S = 120.0
MAX_PROBES = 16
POLL_S = 1.0  # one scrape a second within the window
PROBE_WORKERS = 4  # probes in flight at once
MAX_PROPS_KEYS = 10_000  # a /props with more top-level keys is set aside (real ones have ~20)


@dataclass
class Observation:
    """One server's window: its kind and facts, the folded totals, the probes' answers."""

    url: str
    engine: str
    method: str | None
    gamma: int | None
    speculating: bool
    window_s: float
    first: Scrape | None = None
    last: Scrape | None = None
    totals: WatchSample | None = None
    samples: int = 0
    probes: list[ProbeResult] = field(default_factory=list)
    set_aside: list[Phrase] = field(default_factory=list)  # numbers that failed a check, one line each
    errors: list[Phrase] = field(default_factory=list)  # a source that stopped answering, one line each
    prefix: str | None = None  # the engine's metric prefix (llamacpp, vllm), None where it has none
    tokens_source: Phrase | str | None = None  # the generated-tokens counter (a local run's: in words)
    via: str | None = None  # "prometheus": read through Prometheus (no /props, /slots, probes)
    notes: tuple[str, ...] = ()  # what detection found that changes what the numbers mean (note ids: vllm_fly_lossy)
    by_load: LoadTable | None = None  # the window's polls per level of running requests (watch/model/by_load.py)
    # a measured speed with speculation and a plain baseline, each with where it came from (None: not measured):
    # `--off URL`'s probes on both servers, or a local run and its plain run on the same prompt
    speed_on: float | None = None
    speed_on_source: Phrase | None = None
    baseline_tps: float | None = None
    baseline_source: Phrase | None = None
    context: ContextAcceptance | None = None  # acceptance by context position (a local run's; no server gives it)
    local: bool = False  # a local run (`--target`): counters are the run's own, not a server's


def observe(url: str, *, window_s: float, probes: int, api_key: ApiKey | None, key_env: str | None,
            server: str | None, timeouts: Timeouts, model_name: str | None = None) -> Observation:
    """Watch `url` for `window_s` seconds (and send `probes` requests of our own meanwhile)."""
    window_s = min(max(window_s, 0.0), MAX_WINDOW_S)
    probes = min(max(probes, 0), MAX_PROBES)
    watch = ServerWatch(url, api_key, key_env, server, timeouts)  # a BackendError says why it cannot be read
    conn = Connection(url, api_key, key_env, timeouts)  # /props and the probes: asked apart from the watch
    pool: ThreadPoolExecutor | None = None
    try:
        watch.describe()  # learns the method from /slots where the server names it there
        facts = watch.facts
        obs = Observation(public_url(url) or url, watch.kind.id, facts.method, facts.gamma, facts.speculating,
                          window_s, prefix=watch.kind.metrics_prefix, tokens_source=watch.kind.tokens_counter)
        obs.notes = tuple(n.id for n in facts.notes)
        _read_props(conn, obs)
        model = WatchModel(history=int(MAX_WINDOW_S / POLL_S) + 2)
        obs.by_load = LoadTable(watch.kind.active_gauge)
        obs.first = obs.last = watch.scrape()
        model.feed(obs.first)
        pool = ThreadPoolExecutor(max_workers=PROBE_WORKERS, thread_name_prefix="specview-doctor-probe")
        deadline = probe_deadline(timeouts, window_s)
        pending = [pool.submit(probe_once, conn, k, deadline, model_name, obs.engine)
                   for k in range(probes)]
        ends = time.monotonic() + window_s
        stop = threading.Event()
        while True:
            left = ends - time.monotonic()
            stop.wait(min(POLL_S, left) if left > 0 else POLL_S)  # past the window: probes still running
            try:
                scrape = watch.scrape()
            except SpecviewError as exc:
                obs.errors.append(exc.phrase)
                break
            obs.last = scrape
            sample = model.feed(scrape)
            if sample is not None:
                obs.by_load.add(sample)
            obs.samples += 1
            if time.monotonic() >= ends and all(f.done() for f in pending):
                break
            if time.monotonic() >= ends + deadline:
                break
        obs.probes = [f.result() for f in pending if f.done()]
        obs.probes += [ProbeResult(error=Phrase("doctor.probe.late")) for f in pending if not f.done()]
        watch.describe()
        obs.method = obs.method or watch.facts.method
        obs.speculating = obs.speculating or watch.facts.speculating
        obs.totals = model.totals()
        obs.set_aside += set_aside_of(model.violations, obs.url)
        return obs
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)  # a probe not started never starts
        conn.interrupt()  # a probe still in flight ends now
        conn.close()
        watch.close()


def set_aside_of(violations: Iterable[Violation], url: str) -> list[Phrase]:
    """One line per broken rule (a lying server breaks the same rule at every poll)."""
    said: dict[str, Phrase] = {}
    for v in violations:
        if v.rule not in said:
            values = ", ".join(f"{k} {n}" for k, n in v.values.items())
            said[v.rule] = Phrase("doctor.set_aside_text.counters", url=url, rule=Phrase(f"watch.rule.{v.rule}"),
                                  values=values)
    return list(said.values())


def _read_props(conn: Connection, obs: Observation) -> None:
    """llama-server's /props (bounded by the client's body limit): only its size is judged here.
    A /props over MAX_BODY_BYTES is dropped unread and said as such (it would otherwise look like
    no /props at all, and detection could not recognise llama-server from it); one of more keys
    than any server sends is set aside, and nothing is read from it. Asked of llama-server and of
    a server detection could not name (a /props too large to read is why it could not)."""
    if obs.engine not in ("llama-server", "generic"):
        return
    props, too_large = conn.probe_json_sized(f"{conn.root}/props")
    if too_large:
        obs.set_aside.append(Phrase("doctor.set_aside_text.props_large", url=obs.url, mib=MAX_BODY_BYTES // 2**20))
        obs.method = None if obs.engine == "llama-server" else obs.method
    elif isinstance(props, dict) and len(props) > MAX_PROPS_KEYS:
        obs.set_aside.append(Phrase("doctor.set_aside_text.props", url=obs.url, n=len(props), most=MAX_PROPS_KEYS))
        obs.method = None  # what detection read from it is not used either


def probe_deadline(timeouts: Timeouts, window_s: float) -> float:
    """How long one probe may take: the request timeout, at most the window plus 30 s."""
    return min(timeouts.request, window_s + 30.0)
