"""`--on-alert`'s waiting line: alerts queued per instance, never dropped unsaid.

At most MAX_RUNNING hooks run at once (runner/alert_hook.py); an alert that is due while they
all run waits here and starts as soon as one ends. So that one noisy instance, or a whole rack
going down at once, cannot keep the others waiting for ever, the queue is fair: each instance
that waits gets its turn in the order it began waiting (round robin), one alert per turn.

It is bounded: an instance keeps at most PER_INSTANCE alerts waiting, and the queue at most
MAX_WAITING. An alert due again while its earlier copy still waits replaces that copy (the
newer one says more); when an instance's line (or the whole queue) is full, its oldest waiting
alert gives way to the newest. Each alert that gave way is counted as *coalesced*, and the
counts (`HookCounts`) reach the fleet screen and `--json` with every snapshot.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

PER_INSTANCE = 3  # alerts one instance may have waiting (the oldest gives way to a fourth)
MAX_WAITING = 1024  # alerts waiting over the whole fleet

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class HookCounts:
    """Where `--on-alert` stands: what runs, what waits, and every alert that did not get a run of its own."""

    started: int = 0  # runs begun since specview started
    running: int = 0  # going now (at most MAX_RUNNING)
    waiting: int = 0  # queued, to start as a running one ends
    coalesced: int = 0  # alerts that gave way to a newer one of their instance before they ran
    timed_out: int = 0  # runs ended (their process group) at --on-alert-timeout


class AlertQueue(Generic[T]):
    """Items keyed by (instance, kind), waiting per instance; `take` serves the instances in turn."""

    def __init__(self, per_instance: int = PER_INSTANCE, max_waiting: int = MAX_WAITING) -> None:
        self.per_instance, self.max_waiting = per_instance, max_waiting
        # instance -> its waiting (kind, item), oldest first; the instances in the order of their turn
        self._lines: OrderedDict[str | None, deque[tuple[Hashable, T]]] = OrderedDict()
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def put(self, instance: str | None, kind: Hashable, item: T) -> int:
        """Queue `item`; how many waiting items it coalesced (0 or 1)."""
        line = self._lines.get(instance)
        if line is None:
            line = self._lines[instance] = deque()
        for i, (waiting_kind, _) in enumerate(line):
            if waiting_kind == kind:  # the same alert still waits: the newer copy takes its place
                line[i] = (kind, item)
                return 1
        coalesced = 0
        if len(line) >= self.per_instance:
            line.popleft()
            self._size -= 1
            coalesced = 1
        elif self._size >= self.max_waiting:
            coalesced = self._drop_oldest()
        line.append((kind, item))
        self._size += 1
        return coalesced

    def _drop_oldest(self) -> int:
        """The queue is full: the oldest alert of the instance whose turn comes first gives way."""
        instance, line = next(iter(self._lines.items()))
        line.popleft()
        self._size -= 1
        if not line:
            del self._lines[instance]
        return 1

    def take(self) -> T | None:
        """The next item: the oldest of the instance whose turn it is (None: nothing waits)."""
        if not self._lines:
            return None
        instance, line = next(iter(self._lines.items()))
        _, item = line.popleft()
        self._size -= 1
        del self._lines[instance]
        if line:  # its next alert waits for a new turn, after every other instance's
            self._lines[instance] = line
        return item

    def clear(self) -> int:
        """Forget everything waiting; how many items that was."""
        dropped = self._size
        self._lines.clear()
        self._size = 0
        return dropped
