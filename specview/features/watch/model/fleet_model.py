"""Fold each poll's readings into the fleet as the screen and every output show it.

Instances are told apart by their key (every identifying label, `InstanceReading.key`), never by
a name: each row's shown name comes from the keys held (fleet_keys.py), unique in every snapshot.
Per instance: its samples within `retention_s` (history, α sparkline), its state (a source
says up or down; stalled is decided here), its alerts (model/alert_rules.py) with the time
each began, and whether its α is an outlier. The fleet: the totals of the instances that
answered (a sum, α from the summed verified positions so servers of different γ add up), and
the alerts that began or ended with this poll (the log pane's lines, `--on-alert`'s events).

History is bounded by samples, never by a number a server sent: at most MAX_HISTORY per instance
and FLEET_SAMPLES over the whole fleet (a big fleet keeps fewer per instance, at least
MIN_HISTORY), and each sample is bounded in bytes (per-position counts: at most MAX_GAMMA; the
gauges and notes a source names), so what the history holds is bounded in bytes too.

Outlier: over the alert window, an instance's accepted positions out of its verified ones are
tested against the α pooled over the fleet (a chi-square test of the two counts, kernel/stats.py:
its own binomial sampling noise), then again against the pool of the instances the first pass
kept; it is flagged when the p-value is below `outlier_p` and the gap is at least `outlier_gap`.
A fleet of fewer than three instances with evidence has no outliers (of two, either is odd).
Verify steps of one request are not independent draws, so the test is a screen for "look at
this one", not a proof.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field

from specview.features.watch.model import COUNTS, WatchSample, verified_drafts
from specview.features.watch.model.alert_rules import AlertRules, firing, over_time
from specview.features.watch.model.by_load import LoadTable
from specview.features.watch.model.crossover import MEASURED, Baseline
from specview.features.watch.model.fleet import (
    Alert,
    AlertKind,
    FleetSnapshot,
    InstanceKey,
    InstanceReading,
    InstanceRow,
    State,
)
from specview.features.watch.model.fleet_keys import display_names, find_instance
from specview.kernel.backend import Note
from specview.kernel.stats import chi_square

MIN_INSTANCES = 3  # of two, "the odd one out" is either
MAX_HISTORY = 4096  # samples kept per instance, whatever the retention (a 2 s interval: 2 h 16 min)
FLEET_SAMPLES = 200_000  # samples kept over the whole fleet (under 1 KB each: at most ~200 MB)
MIN_HISTORY = 64  # samples an instance keeps however big the fleet (the sparkline shows 12)
MAX_NOTES = 16  # notes one instance keeps (their ids are specview's own: a handful)


@dataclass(slots=True)
class _InstanceMemory:
    """What the model remembers of one instance."""

    reading: InstanceReading
    state: State = State.UP
    since: float | None = None
    seen: float = 0.0  # wall clock of its last reading
    samples: deque[WatchSample] = field(default_factory=lambda: deque(maxlen=MAX_HISTORY))
    alphas: deque[float | None] = field(default_factory=lambda: deque(maxlen=MAX_HISTORY))  # each sample's α,
    # computed once when it arrives (a row's history is copied every poll: 100 instances × 4096 windows)
    still: int = 0  # polls in a row that answered, with requests running and no counter moving
    still_since: float | None = None
    alerts: dict[AlertKind, Alert] = field(default_factory=dict)
    notes: dict[str, Note] = field(default_factory=dict)  # the latest note of each id its samples said
    new_notes: tuple[Note, ...] = ()  # those that arrived with the last poll
    by_load: LoadTable = field(default_factory=LoadTable)  # its windows per running requests (model/by_load.py)


class FleetModel:
    """Readings in, snapshots out; one per poll."""

    def __init__(self, interval: float, retention_s: float = 600.0, rules: AlertRules | None = None,
                 baseline: str | Baseline | None = None) -> None:
        self.interval = interval
        self.retention_s = retention_s
        self.rules = rules or AlertRules()
        # each one's crossover baseline: the plain instance `--baseline` names, a fixed one, or none
        self.baseline = baseline
        self._instances: dict[InstanceKey, _InstanceMemory] = {}
        self._names: dict[InstanceKey, str] = {}  # each key's shown name (fleet_keys.py), for these keys
        self.polls = 0

    def fold(self, readings: tuple[InstanceReading, ...], now: float | None = None) -> FleetSnapshot:
        """One poll's readings (instances missing from it are down while within the retention)."""
        now = time.time() if now is None else now
        self.polls += 1
        answered = {r.key for r in readings}
        for inst in self._instances.values():
            inst.new_notes = ()
        for reading in readings:
            self._take(reading, now)
        for key in [k for k in self._instances if k not in answered]:
            inst = self._instances[key]
            if now - inst.seen > self.retention_s:
                del self._instances[key]
            else:
                self._set_state(inst, State.DOWN, now)
        if self._names.keys() != self._instances.keys():  # an instance came or went: names may change
            self._names = display_names(self._instances)
        self._bound_history()
        self._set_baselines()
        windows = {key: self._windows(inst) for key, inst in self._instances.items()}
        outliers = _outliers({k: w[0] for k, w in windows.items() if self._instances[k].state is not State.DOWN},
                             self.rules)
        rows, began, ended = [], [], []
        for key, inst in self._instances.items():
            name = self._names[key]
            window, before = windows[key]
            stalled_s = now - inst.still_since if inst.still_since is not None else None
            error = inst.reading.error if key in answered else None
            now_firing = firing(inst.state, window, before, self.rules, stalled_s, error)
            for kind in [k for k in inst.alerts if k not in now_firing]:
                ended.append(inst.alerts.pop(kind))
            for kind, values in now_firing.items():
                old = inst.alerts.get(kind)
                inst.alerts[kind] = Alert(kind, name, old.since if old else now, values)
                if old is None:
                    began.append(inst.alerts[kind])
            rows.append(self._row(key, name, inst, key in outliers))
        up = [sample for key, inst in self._instances.items()
              if inst.state is not State.DOWN and key in answered and (sample := inst.reading.sample) is not None]
        window_s = max((s.dt for s in up), default=self.interval) or self.interval
        return FleetSnapshot(now, window_s, tuple(rows), over_instances(up, window_s),
                             tuple(a for row in rows for a in row.alerts), began=tuple(began), ended=tuple(ended),
                             alert_window_s=self.rules.window_s, retention_s=self.retention_s)

    def _set_baselines(self) -> None:
        """Each instance's crossover baseline (model/crossover.py): the plain instance `baseline`
        names, measured (itself has none); else the fixed one (a sweep's, or plain decoding's
        tokens/s per request `--baseline-tps` gives at every level), or none."""
        named = self.baseline if isinstance(self.baseline, str) else None
        plain = find_instance(self._names, named) if named is not None else None
        for key, inst in self._instances.items():
            if named is None:
                inst.by_load.baseline = self.baseline if isinstance(self.baseline, Baseline) else None
            elif plain is None:  # named, not (yet) in the fleet: compared with nothing, said so
                inst.by_load.baseline = Baseline(MEASURED, named)
            else:
                inst.by_load.baseline = None if key == plain else \
                    self._instances[plain].by_load.as_baseline(self._names[plain])

    def _take(self, reading: InstanceReading, now: float) -> None:
        inst = self._instances.get(reading.key)
        if inst is None:
            inst = self._instances[reading.key] = _InstanceMemory(reading)
            inst.samples.extend(reading.history)  # Prometheus: windows from before we watched
            inst.alphas.extend(s.alpha for s in reading.history)
            for earlier in reading.history:
                inst.by_load.add(earlier)
            _heard(inst, [n for s in reading.history for n in s.notes])
        inst.reading, inst.seen = reading, now
        sample = reading.sample
        if sample is not None:
            _heard(inst, sample.notes)
        if reading.state is State.DOWN:
            inst.still, inst.still_since = 0, None
            self._set_state(inst, State.DOWN, now)
            return
        if sample is not None:
            inst.samples.append(sample)
            inst.alphas.append(sample.alpha)
            inst.by_load.add(sample)
            self._trim(inst)
            if (sample.active or 0) > 0 and not sample.reset and _still(sample):
                inst.still += 1
                if inst.still_since is None:
                    inst.still_since = now - sample.dt
            else:
                inst.still, inst.still_since = 0, None
        stalled = inst.still >= self.rules.stall_polls
        self._set_state(inst, State.STALLED if stalled else State.UP, now)

    def _trim(self, inst: _InstanceMemory) -> None:
        """Keep the newest samples spanning at most the retention (and their α alongside)."""
        samples, alphas = inst.samples, inst.alphas
        span = sum(s.dt for s in samples)
        while len(samples) > 1 and span - samples[0].dt >= self.retention_s:
            span -= samples.popleft().dt
            alphas.popleft()

    def _bound_history(self) -> None:
        """At most FLEET_SAMPLES samples over the fleet: each instance its share (MIN_HISTORY at least)."""
        share = max(MIN_HISTORY, min(MAX_HISTORY, FLEET_SAMPLES // max(1, len(self._instances))))
        for inst in self._instances.values():
            while len(inst.samples) > share:
                inst.samples.popleft()
                inst.alphas.popleft()

    def _set_state(self, inst: _InstanceMemory, state: State, now: float) -> None:
        if state is not inst.state:
            inst.state, inst.since = state, now

    def _windows(self, inst: _InstanceMemory) -> tuple[WatchSample | None, WatchSample | None]:
        """The last alert window and the one before it, each summed (None where no sample)."""
        seconds = self.rules.window_s
        newest_first: list[WatchSample] = []
        span = 0.0
        for sample in reversed(inst.samples):  # only as far back as two windows reach
            if span > 2 * seconds:
                break
            newest_first.append(sample)
            span += sample.dt
        cut = _spanning(newest_first, 0, seconds)
        end = _spanning(newest_first, cut, seconds)
        return over_time(newest_first[:cut][::-1]), over_time(newest_first[cut:end][::-1])

    def _row(self, key: InstanceKey, name: str, inst: _InstanceMemory, outlier: bool) -> InstanceRow:
        reading = inst.reading
        window = inst.samples[-1] if inst.samples and inst.state is not State.DOWN else None
        return InstanceRow(name, inst.state, inst.since, reading.engine, reading.method, reading.gamma, window,
                           tuple(inst.alphas), outlier, tuple(inst.alerts.values()),
                           reading.missing, reading.error if inst.state is State.DOWN else None,
                           key, tuple(inst.notes.values()), inst.new_notes, by_load=inst.by_load.copy())


def _heard(inst: _InstanceMemory, notes: list[Note] | tuple[Note, ...]) -> None:
    """Keep what the instance's samples said: the latest of each id, and this poll's news."""
    for note in notes:
        if note.id in inst.notes or len(inst.notes) < MAX_NOTES:
            inst.notes[note.id] = note
    inst.new_notes = (*inst.new_notes, *notes)[:MAX_NOTES]


def _spanning(newest_first: list[WatchSample], start: int, seconds: float) -> int:
    """Where a window that starts at `start` (newest first) and spans at most `seconds` ends
    (one sample at least, however long)."""
    end, span = start, 0.0
    while end < len(newest_first) and (end == start or span + newest_first[end].dt <= seconds + 1e-9):
        span += newest_first[end].dt
        end += 1
    return end


def _still(sample: WatchSample) -> bool:
    """No counter moved over the sample."""
    return sample.drafts == 0 and sample.draft_tokens == 0 and not sample.tokens


def over_instances(samples: list[WatchSample], window_s: float) -> WatchSample | None:
    """The fleet's totals: the instances' samples of one poll summed (running requests too);
    α from the verified positions summed, each counted with the instance's own γ."""
    if not samples:
        return None
    width = max(len(s.per_position) for s in samples)
    tokens = [s.tokens for s in samples if s.tokens is not None]
    active = [s.active for s in samples if s.active is not None]
    verified = [v for s in samples if (v := verified_drafts(s.drafts, s.draft_tokens, s.accepted, s.per_position,
                                                             beyond=s.positions_beyond))]
    basis = {b for _, b in verified}
    cadences = {s.cadence for s in samples}
    return WatchSample(max(s.t for s in samples), window_s, sum(s.drafts for s in samples),
                       sum(s.draft_tokens for s in samples), sum(s.accepted for s in samples),
                       tuple(sum(s.per_position[k] for s in samples if k < len(s.per_position)) for k in range(width)),
                       sum(tokens) if tokens else None, sum(active) if active else None,
                       verified=sum(n for n, _ in verified) if verified else None,
                       verified_basis=basis.pop() if len(basis) == 1 else COUNTS if basis else None,
                       cadence=cadences.pop() if len(cadences) == 1 else None)


def _outliers(windows: dict[InstanceKey, WatchSample | None], rules: AlertRules) -> set[InstanceKey]:
    """The instances whose α over the window its own sampling noise does not reconcile with the
    fleet's pooled α. Twice: against the pool of all, then against the pool of those the first
    pass kept (so one far-off instance does not drag the pool and make the others look odd)."""
    counts = {}
    for name, w in windows.items():
        verified = (verified_drafts(w.drafts, w.draft_tokens, w.accepted, w.per_position, beyond=w.positions_beyond)
                    if w is not None else None)
        if w is not None and verified and verified[0] and w.drafts >= rules.min_drafts:
            counts[name] = (w.accepted, verified[0])
    if len(counts) < MIN_INSTANCES:
        return set()
    first = _far(counts, counts, rules)
    kept = {n: c for n, c in counts.items() if n not in first}
    return _far(counts, kept, rules) if len(kept) >= MIN_INSTANCES - 1 else first


def _far(counts: dict[InstanceKey, tuple[int, int]], pool: dict[InstanceKey, tuple[int, int]],
         rules: AlertRules) -> set[InstanceKey]:
    """The instances whose (accepted, verified) the α pooled over `pool` does not explain."""
    pooled = sum(a for a, _ in pool.values()) / sum(v for _, v in pool.values())
    flagged = set()
    for name, (accepted, verified) in counts.items():
        if abs(accepted / verified - pooled) < rules.outlier_gap:
            continue
        test = chi_square([accepted, verified - accepted], [pooled, 1.0 - pooled])
        if not math.isnan(test.p_value) and test.p_value < rules.outlier_p:
            flagged.add(name)
    return flagged
