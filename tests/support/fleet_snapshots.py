"""Fleet snapshots for the fleet screen's tests: plain data, as the fleet model folds them."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from specview.features.watch.model import WatchSample
from specview.features.watch.model.fleet import (
    Alert,
    AlertKind,
    FleetSnapshot,
    InstanceReading,
    InstanceRow,
    State,
)

T0 = 1_780_000_000.0  # a fixed wall clock (the screen shows times of day from it)
WINDOW_S = 2.0


def window(drafts: int, accepted: int, tokens: int, active: float = 1.0, positions: int = 3) -> WatchSample:
    """One 2 s window: `drafts` drafts of `positions` tokens, `accepted` of them kept (front-loaded)."""
    per_position, left = [], accepted
    for _ in range(positions):
        per_position.append(min(left, drafts))
        left -= per_position[-1]
    return WatchSample(T0, WINDOW_S, drafts, drafts * positions, accepted, tuple(per_position), tokens, active)


def row(instance: str, *, engine: str = "llama-server", method: str | None = "draft-mtp", gamma: int | None = 3,
        sample: WatchSample | None = None, state: State = State.UP, since: float | None = None,
        outlier: bool = False, alerts: tuple[Alert, ...] = (), history: tuple[float | None, ...] = ()) -> InstanceRow:
    return InstanceRow(instance, state, since, engine, method, gamma, sample, history, outlier, alerts)


def fleet(rows: tuple[InstanceRow, ...], alerts: tuple[Alert, ...] = ()) -> FleetSnapshot:
    up = [r.window for r in rows if r.state is State.UP and r.window is not None]
    totals = WatchSample(T0, WINDOW_S, sum(w.drafts for w in up), sum(w.draft_tokens for w in up),
                         sum(w.accepted for w in up), tuple(map(sum, zip(*(w.per_position for w in up), strict=True))),
                         sum(w.tokens or 0 for w in up),
                         sum(w.active or 0 for w in up)) if up else None
    return FleetSnapshot(T0, WINDOW_S, rows, totals, alerts)


def five() -> FleetSnapshot:
    """Three llama-servers, a vLLM (the outlier, alerting: not working) and one down."""
    down = Alert(AlertKind.DOWN, "http://127.0.0.1:8004", T0 - 30, {"error": "connection refused"})
    broken = Alert(AlertKind.NOT_WORKING, "http://127.0.0.1:8003", T0 - 10,
                   {"drafts": 120, "alpha": 0.0, "accept_length": 1.0, "threshold": 1.05})
    return fleet((
        row("http://127.0.0.1:8000", sample=window(40, 90, 200), history=(0.7, 0.72, 0.75)),
        row("http://127.0.0.1:8001", sample=window(40, 60, 150), history=(0.5, 0.55)),
        row("http://127.0.0.1:8002", method="ngram-simple", sample=window(20, 10, 90, active=2)),
        row("http://127.0.0.1:8003", engine="vllm", method="eagle3", gamma=5, sample=window(30, 0, 300, 4),
            outlier=True, alerts=(broken,)),
        row("http://127.0.0.1:8004", state=State.DOWN, since=T0 - 30, alerts=(down,)),
    ))


class Snapshots:
    """A FleetSource and its fold over prepared snapshots: each poll folds to the current one
    (`now`), so a test changes what the next poll shows."""

    def __init__(self, snapshot: FleetSnapshot) -> None:
        self.now = snapshot
        self.polls = 0
        self.closed = threading.Event()

    def poll(self) -> tuple[InstanceReading, ...]:
        self.polls += 1
        return tuple(InstanceReading(r.instance, r.state, r.engine, r.method, r.gamma, r.window)
                     for r in self.now.rows)

    def fold(self, readings: tuple[InstanceReading, ...]) -> FleetSnapshot:
        assert [r.instance for r in readings] == [r.instance for r in self.now.rows]
        return self.now

    def interrupt(self) -> None:
        """Nothing in flight to end."""

    def close(self) -> None:
        self.closed.set()


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The fleet shows times of day: the same in every time zone the tests run in (autouse in every
    module that imports it)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
