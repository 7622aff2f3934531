"""`specview watch --prometheus URL`: every instance's speculative decoding, read from Prometheus.

Each poll is one instant query (promql.py) for every instance's latest cumulative counters, its
`up` and the time of its last scrape. An instance is its whole label set (`job` and `instance`,
every label but the series name, `position` and specview's own tag): `a` in two jobs is two
instances, whatever an `instance` label holds (the fleet model names them apart). It is folded the
way a direct scrape is: its values become a `Scrape` stamped with Prometheus's scrape time and go
through the same `WatchModel`, so each reading's sample holds the same counts a direct watch
would (deltas between two scrapes, a counter that went down is a restart) and rates over the
time between those scrapes. That is `increase()` without its extrapolation to the window's
edges: whole counts, and the equality with the servers' own /metrics holds to the count. An
instance Prometheus has not scraped again since the last poll has no new sample (None):
Prometheus cannot know more than its scrape interval lets it. A scrape stamped no later than the
last one folded is never folded again, so no window is ever negative.

The first poll's window is the asked one (`--interval`, so `--once` reads what it asked for): one
more instant query at `interval` seconds ago, each instance's scrape then folded against its latest
(Prometheus holds no point between two of its scrapes, so the window runs from the last scrape at or
before that time: the asked interval, give or take one scrape interval; `window_s` says what it
was). Where no scrape lies between (`interval` shorter than Prometheus's scrape interval) the
window is the shortest Prometheus has, from the scrape before the latest; where Prometheus has no
earlier scrape, the history's last window (below).

The first poll also asks a range query over the retention, so the charts start before specview
did: the values every `step` seconds (the window, or coarser: at most MAX_HISTORY windows, fewer
for a big fleet so the answer stays a few MB), folded the same way. A history point stamped
outside the range asked or off its steps (so an instance holds at most one point per step), or
read at a scrape after its own time, is dropped and counted: one note with the instance's first
sample says how many. The engine is the server kind whose series the instance has; its
`missing` lists the kind's series it lacks (per-position counters only once it drafted: servers
add them with the first draft). Prometheus does not know a server's method, so `method` is None
and γ is the number of position series. Position series
are kept for positions below MAX_POSITIONS (the most γ specview shows); one beyond is counted,
never allocated (a `position="1024"` label is a number, not a size), and γ is then not stated.

Values that are not counts (NaN, ±Inf, negative, beyond 2^53) make that instance's reading an
error (DOWN, the series named); a gauge that is not finite is left out with a note. Prometheus
that fails (down, 401/403, a query error, an answer too large) raises one BackendError from
`poll`, and a selector that matches no instance is one too.
"""

from __future__ import annotations

import contextlib
import time
from argparse import Namespace
from dataclasses import dataclass, field, replace

from specview.backends.reason import reason_of
from specview.backends.remote.server_kind import DIFFUSION_METHOD
from specview.backends.remote.timeouts import Timeouts
from specview.boundary.bounds import Invalid
from specview.boundary.text import sanitize
from specview.features.watch.model import WatchModel, WatchSample
from specview.features.watch.model.fleet import InstanceReading, State
from specview.features.watch.model.fleet_keys import instance_label
from specview.features.watch.source.first_window import between, instead
from specview.features.watch.source.prometheus_answer import (
    InstanceAnswer,
    Key,
    add_series,
    key_of,
    scrape_of,
)
from specview.features.watch.source.prometheus_api import PrometheusApi, PrometheusAuth, PrometheusSeries
from specview.features.watch.source.promql import (
    EngineSeries,
    engine_of,
    is_diffusion,
    match_selector,
    now_query,
)
from specview.kernel.backend import Note
from specview.kernel.errors import BackendError
from specview.texts.catalog import Phrase

MAX_INSTANCES = 2000  # instances of one fleet (more: narrow --match)
MAX_HISTORY = 150  # windows of history asked for on the first poll
MIN_HISTORY = 10
MAX_HISTORY_POINTS = 120_000  # points of the history's answer in all (~30 bytes each: a few MB)
DEFAULT_WINDOW_S = 2.0
FAILED_SCRAPE = Phrase("watcherr.prometheus.failed_scrape")  # compared by identity
DEFAULT_RETENTION_S = 600.0

CLOCK_SLACK_S = 0.001  # the range is sent to the millisecond


@dataclass
class _Followed:
    """An instance being watched: its fold, and the last scrape time folded."""

    model: WatchModel = field(default_factory=lambda: WatchModel(history=1))
    folded: float | None = None  # the time stamp of the last scrape folded
    pending: tuple[Note, ...] = ()  # said with the next sample (the first may be None)


class PrometheusFleet:
    """Every instance Prometheus scrapes (narrowed by `match`), as a FleetSource."""

    def __init__(self, url: str, *, match: str | None = None, auth: PrometheusAuth | None = None,
                 window_s: float = DEFAULT_WINDOW_S, retention_s: float = DEFAULT_RETENTION_S,
                 timeouts: Timeouts | None = None) -> None:
        self._matchers = match_selector(match)  # CliError for one that is not a label selector
        self.window_s = max(0.001, window_s)
        self.retention_s = max(self.window_s, retention_s)
        self._api = PrometheusApi(url, auth, timeouts)
        self.root = self._api.root
        self._followed: dict[Key, _Followed] = {}

    def poll(self) -> tuple[InstanceReading, ...]:
        """One reading per instance (see the module docstring); BackendError when Prometheus fails."""
        at = time.time()
        answer = self._api.vector(now_query(self._matchers), at)
        now = _instances(answer, at)
        if not now and not self._followed:
            shown_match = (Phrase("watcherr.prometheus.matching", match=sanitize(self._matchers, 200, one_line=True))
                           if self._matchers else "")
            raise BackendError("watcherr.prometheus.no_instance", root=self.root, matching=shown_match)
        history: dict[Key, list[InstanceAnswer]] = {}
        dropped: dict[Key, int] = {}
        before: dict[Key, InstanceAnswer] = {}
        history_note: Note | None = None
        if not self._followed:
            try:
                history, dropped = self._history(at, len(answer))
            except BackendError as exc:  # the live numbers do not need it
                history_note = Note("prometheus_no_history", {"error": str(exc)})
            with contextlib.suppress(BackendError):  # without it, the window is the history's last
                before = self._before(at, now)
        keys = sorted(set(now) | set(self._followed), key=lambda k: (instance_label(k), k))
        if len(keys) > MAX_INSTANCES:
            raise _too_many(self.root, len(keys))
        readings = [self._reading(key, now.get(key), history.get(key, []), history_note, dropped.get(key, 0),
                                  before.get(key)) for key in keys]
        if any(r.error is FAILED_SCRAPE for r in readings):
            why = self._api.scrape_errors()  # one more request, only while an instance is down
            readings = [replace(r, error=Phrase("watcherr.prometheus.failed_scrape_why", why=said))
                        if r.error is FAILED_SCRAPE and (said := why.get(_job_instance(key))) is not None
                        else r for key, r in zip(keys, readings, strict=True)]
        return tuple(readings)

    def _before(self, at: float, now: dict[Key, InstanceAnswer]) -> dict[Key, InstanceAnswer]:
        """Each instance's values at its last scrape `window_s` before `at`; where that is the
        scrape `now` holds (an interval shorter than Prometheus's), the scrape before that one."""
        began = at - self.window_s
        before = _instances(self._api.vector(now_query(self._matchers), began), began)
        same = [key for key, answer in now.items() if key in before and _samescrape_of(before[key], answer)]
        if same:
            earlier_at = min(now[key].scraped or at for key in same) - CLOCK_SLACK_S
            earlier = _instances(self._api.vector(now_query(self._matchers), earlier_at), earlier_at)
            before.update((key, earlier[key]) for key in same if key in earlier)
        return before

    def _history(self, at: float, series: int) -> tuple[dict[Key, list[InstanceAnswer]], dict[Key, int]]:
        """Each instance's values every `step` s over the retention, oldest first, each stamped
        with the time of the scrape it comes from; at most MAX_HISTORY_POINTS points in all for
        the `series` the instant query found (a big fleet gets coarser steps, not a refusal).
        Also each instance's points dropped: stamped outside the range asked or off its steps
        (so an instance holds at most windows + 1 points), or read at a scrape after their own time."""
        windows = max(MIN_HISTORY, min(MAX_HISTORY, MAX_HISTORY_POINTS // max(1, series)))
        step = round(max(self.window_s, self.retention_s / windows), 3)  # as the query sends them
        start, end = round(at - self.retention_s, 3), round(at, 3)
        found: dict[Key, dict[float, InstanceAnswer]] = {}
        dropped: dict[Key, int] = {}
        for one in self._api.matrix(now_query(self._matchers), start, end, step):
            key = key_of(one.labels)
            points = found.setdefault(key, {})
            if len(found) > MAX_INSTANCES:
                raise _too_many(self.root, len(found))
            for t, value in one.points:
                if not _asked(t, start, end, step):
                    dropped[key] = dropped.get(key, 0) + 1
                    continue
                add_series(points.setdefault(t, InstanceAnswer(at=t)), one.labels, value)
        history: dict[Key, list[InstanceAnswer]] = {}
        for key, points in found.items():
            kept = [points[t] for t in sorted(points)
                    if (stamp := points[t].scraped) is None or stamp <= t + CLOCK_SLACK_S]
            if len(kept) < len(points):  # a scrape after the time it is read at: not a scrape
                dropped[key] = dropped.get(key, 0) + len(points) - len(kept)
            history[key] = kept
        return history, dropped

    def _reading(self, key: Key, now: InstanceAnswer | None, history: list[InstanceAnswer],
                 history_note: Note | None, dropped: int = 0, before: InstanceAnswer | None = None) -> InstanceReading:
        name = instance_label(key)
        if now is None:
            return InstanceReading(name, State.DOWN, error=Phrase("watcherr.prometheus.gone"), labels=key)
        names = _names_in(now)
        series = engine_of(names)
        first = key not in self._followed
        followed = self._followed.setdefault(key, _Followed())
        if first:
            said = [history_note] if history_note is not None else []
            if dropped:
                said.append(Note("prometheus_history_dropped", {"n": str(dropped)}))
            followed.pending = tuple(said)
        try:
            samples = [s for point in history if (s := _fold(followed, point, series)) is not None]
            sample = _fold(followed, now, series)
            asked = _asked_window(before, now, series) if first else None
        except Invalid as exc:
            return InstanceReading(name, State.DOWN, engine=series.engine if series else None,
                                   error=Phrase("watcherr.prometheus.holds", what=reason_of(exc)), labels=key)
        if asked is not None:  # the window asked for; the history up to where it begins
            sample, samples = instead(asked, samples, sample)
        elif first and sample is None and samples:  # no scrape in the window asked: the history's last
            sample = samples.pop()
        if sample is not None and followed.pending:
            sample, followed.pending = replace(sample, notes=(*sample.notes, *followed.pending)), ()
        engine = series.engine if series else "generic"
        gamma = len(sample.per_position) if sample is not None and sample.per_position else _width(now, series)
        if now.beyond:  # its series go past what specview reads: γ is not known
            gamma = None
        if now.up == 0:
            return InstanceReading(name, State.DOWN, engine=engine, gamma=gamma, missing=_missing(now, names, series),
                                   error=FAILED_SCRAPE, history=tuple(samples), labels=key)
        if is_diffusion(names, series):  # named as what it is; the draft series it lacks are not missing
            return InstanceReading(name, State.UP, engine=engine, method=DIFFUSION_METHOD, sample=sample,
                                   history=tuple(samples), labels=key)
        return InstanceReading(name, State.UP, engine=engine, gamma=gamma, sample=sample,
                               missing=_missing(now, names, series), history=tuple(samples), labels=key)

    def interrupt(self) -> None:
        """End a query in flight at once (any thread)."""
        self._api.interrupt()

    def close(self) -> None:
        self._api.close()


def prometheus_fleet_of(args: Namespace, timeouts: Timeouts | None = None) -> PrometheusFleet:
    """The fleet the command line names: `--prometheus URL`, `--match`, the credential flags
    (`--prometheus-user`, `--prometheus-password-env`, `--prometheus-token-env`), `--interval`
    (the history's finest window) and `--retention` (seconds of history), with `timeouts`
    (the command's `timeouts_of(args, config)`). CliError for flags that do not fit together."""
    auth = PrometheusAuth.from_env(getattr(args, "prometheus_user", None),
                                   getattr(args, "prometheus_password_env", None),
                                   getattr(args, "prometheus_token_env", None))
    interval = getattr(args, "interval", None)
    retention = getattr(args, "retention", None)
    return PrometheusFleet(args.prometheus, match=getattr(args, "match", None), auth=auth,
                           window_s=float(interval) if interval else DEFAULT_WINDOW_S,
                           retention_s=float(retention) if retention else DEFAULT_RETENTION_S, timeouts=timeouts)


def _asked(t: float, start: float, end: float, step: float) -> bool:
    """Whether a range answer's time stamp is one the query asked for: start + k·step, within [start, end]."""
    if not start - CLOCK_SLACK_S <= t <= end + CLOCK_SLACK_S:
        return False
    return abs(t - start - round((t - start) / step) * step) <= CLOCK_SLACK_S


def _job_instance(key: Key) -> tuple[str, str]:
    labels = dict(key)
    return labels.get("job", ""), labels.get("instance", "")


def _instances(result: list[PrometheusSeries], at: float) -> dict[Key, InstanceAnswer]:
    found: dict[Key, InstanceAnswer] = {}
    for series in result:
        if series.points:
            into = found.setdefault(key_of(series.labels), InstanceAnswer(at=at))
            add_series(into, series.labels, series.points[0][1])
        if len(found) > MAX_INSTANCES:
            raise _too_many("Prometheus", len(found))
    return found


def _too_many(root: str, n: int) -> BackendError:
    return BackendError("watcherr.prometheus.too_many", root=root, n=n, most=MAX_INSTANCES)


def _names_in(point: InstanceAnswer) -> set[str]:
    return {name for name, _pos in point.values} | set(point.gauges)


def _missing(point: InstanceAnswer, names: set[str], series: EngineSeries | None) -> tuple[str, ...]:
    if series is None:
        return ()
    drafted = (point.values.get((series.draft_tokens or "", "")) or 0) > 0
    return tuple(n for n in series.expected if n not in names and (n != series.per_position or drafted))


def _width(point: InstanceAnswer, series: EngineSeries | None) -> int | None:
    positions = [pos for name, pos in point.values if series is not None and name == series.per_position]
    return len(positions) or None


def _fold(followed: _Followed, point: InstanceAnswer, series: EngineSeries | None) -> WatchSample | None:
    """The sample since the last scrape folded, or None: a scrape already folded, a failed one
    (its series are gone until the next), or the first."""
    if point.up == 0 or not (point.values or point.gauges or point.beyond):
        return None
    stamp = point.scraped if point.scraped is not None else point.at
    if followed.folded is not None and stamp <= followed.folded:  # folded already, or older: never backwards
        return None
    sample = followed.model.feed(scrape_of(point, series))
    followed.folded = stamp
    return sample


def _samescrape_of(before: InstanceAnswer, now: InstanceAnswer) -> bool:
    """Whether `before` holds the scrape `now` holds (or a later one)."""
    return before.scraped is not None and now.scraped is not None and before.scraped >= now.scraped


def _asked_window(before: InstanceAnswer | None, now: InstanceAnswer,
                  series: EngineSeries | None) -> WatchSample | None:
    """The sample from the scrape `before` holds to the one `now` holds (None: the same scrape, a
    failed one, or no `before`)."""
    if before is None or not before.values or before.up == 0 or now.up == 0:
        return None
    if before.scraped is None or now.scraped is None or before.scraped >= now.scraped:
        return None
    return between(scrape_of(before, series), scrape_of(now, series))
