"""What a fleet watch passes along: each instance's poll, and the fleet as the screen draws it.

`specview watch` with several targets, or with `--prometheus`, polls many instances at once. A
fleet source (direct scrapes of each server's /metrics, or Prometheus's HTTP API) answers each
poll with one `InstanceReading` per instance: who it is, whether it answered, and what it did
over the window (a `WatchSample`, the same type a single-server watch folds). The fleet model
folds readings into `FleetSnapshot`s (rows with history, states, alerts, the fleet's totals),
which the fleet screen, `--json`, `--csv` and `--check` all read.

An instance is known by its key, every label that identifies it (Prometheus: `job` and `instance`;
a direct target: its URL), never by the name it is shown by: two instances Prometheus scrapes
under one `instance` label in two jobs are two rows. The fleet model derives each row's shown name
from the keys it holds (model/fleet_keys.py: unique, the distinguishing label added where needed).

Every string here that came from outside (instance, method, error) is untrusted: sanitize it
before it is shown. An error is `Said`: specview's own words as a Phrase (its fields already made
safe), put into the language of the screen or output that shows it (`said_in`), or a plain text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from specview.features.watch.model import WatchSample
from specview.features.watch.model.alert_queue import HookCounts
from specview.features.watch.model.by_load import LoadTable
from specview.kernel.backend import Note
from specview.texts.catalog import Phrase

Said = str | Phrase  # why an instance is down: a text, or a Phrase rendered where it is shown
InstanceKey = tuple[tuple[str, str], ...]  # an instance's identifying labels, (name, value) sorted by name


def said_in(said: Said | None, lang: str) -> str | None:
    """`said` in `lang` (a plain text as it is); the caller sanitizes and bounds it to show it."""
    return said.render(lang) if isinstance(said, Phrase) else said


class State(StrEnum):
    """An instance's state; the JSON and CSV outputs write these values."""

    UP = "up"  # answered the last poll
    DOWN = "down"  # did not answer (refused, timed out, an error status)
    STALLED = "stalled"  # answers, but its counters have not moved while requests run


class AlertKind(StrEnum):
    """What an alert is about (texts: `fleet.alert.<value>`)."""

    NOT_WORKING = "not_working"  # drafting, and α = 0 over the window, or accept length < threshold
    ALPHA_DROP = "alpha_drop"  # α fell by more than the threshold between two windows
    DOWN = "down"  # the instance does not answer
    STALLED = "stalled"  # the instance answers but does nothing while requests run
    SLOWER = "slower"  # speculation slower than the measured baseline


@dataclass(frozen=True, slots=True)
class InstanceReading:
    """One instance's answer to one poll."""

    instance: str  # untrusted: a URL, or Prometheus's `instance` label
    state: State  # UP or DOWN as seen by the source (STALLED is the model's to decide)
    engine: str | None = None  # a server kind id: "llama-server", "vllm", "sglang", "generic"
    method: str | None = None  # untrusted: e.g. "draft-mtp", "ngram", "eagle3"
    gamma: int | None = None  # draft tokens per round where the engine says so
    sample: WatchSample | None = None  # over this window (None: first direct poll, or down)
    error: Said | None = None  # untrusted, one line: why it is down
    missing: tuple[str, ...] = ()  # series the engine should export and this instance lacks
    history: tuple[WatchSample, ...] = ()  # earlier windows (Prometheus range queries), oldest first
    labels: InstanceKey = ()  # every label that identifies it (Prometheus: job, instance); (): `instance` alone

    @property
    def key(self) -> InstanceKey:
        """What the fleet model knows the instance by (see the module docstring)."""
        return self.labels or (("instance", self.instance),)


class FleetSource(Protocol):
    """Many instances polled together. `poll` returns within the request deadline (an instance
    that does not answer in time is DOWN in that poll, never a wait for the others)."""

    def poll(self) -> tuple[InstanceReading, ...]: ...

    def interrupt(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Alert:
    """One alert firing on one instance (or on the fleet: instance None)."""

    kind: AlertKind
    instance: str | None
    since: float  # wall-clock time it began firing
    values: dict[str, float | Said] = field(default_factory=dict)  # the numbers behind it, for its text


@dataclass(frozen=True, slots=True)
class InstanceRow:
    """One row of the fleet table."""

    instance: str
    state: State
    since: float | None  # wall-clock time the state began (None: since watching began)
    engine: str | None
    method: str | None
    gamma: int | None
    window: WatchSample | None  # the last window
    alpha_history: tuple[float | None, ...]  # one per window within the retention, oldest first
    outlier: bool  # α far from the fleet's, beyond its own sampling noise
    alerts: tuple[Alert, ...] = ()
    missing: tuple[str, ...] = ()
    error: Said | None = None
    labels: InstanceKey = ()  # its identifying labels; (): `instance` alone (the name shown, unique in a snapshot)
    notes: tuple[Note, ...] = ()  # what its samples said so far, the latest of each (the instance screen)
    new_notes: tuple[Note, ...] = ()  # what arrived with this poll (said once: --json, the lines)
    by_load: LoadTable | None = None  # α, yield, τ, tokens/s per running requests since watching began

    @property
    def key(self) -> InstanceKey:
        """The instance the row shows, whatever name it is shown by (see the module docstring)."""
        return self.labels or (("instance", self.instance),)


@dataclass(frozen=True, slots=True)
class FleetSnapshot:
    """The fleet after one poll."""

    time: float  # wall clock
    window_s: float  # the window every rate and α is over
    rows: tuple[InstanceRow, ...]
    totals: WatchSample | None  # the sum over the instances that are up
    alerts: tuple[Alert, ...] = ()  # firing now, row by row
    began: tuple[Alert, ...] = ()  # alerts that began firing with this poll (the log's lines)
    ended: tuple[Alert, ...] = ()  # alerts that stopped firing with this poll
    alert_window_s: float = 0.0  # the window the alerts and the outlier test read
    retention_s: float = 0.0  # how far back each row's history reaches
    hooks: HookCounts | None = None  # where --on-alert stands after this poll (None: no --on-alert)
