"""What every backend provides: Rounds for a prompt, from its own thread, until stopped."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

from specview.core.events import Reconcile, Round


class BackendError(RuntimeError):
    """A failure the user can act on; the message is shown as is (no traceback)."""


@dataclass(frozen=True, slots=True)
class BackendInfo:
    """What the status line and recordings say about a run (never secrets)."""

    backend: str
    label: str
    gamma: int | None
    temperature: float
    preset: str | None = None
    model: str | None = None
    draft: str | None = None
    seed: int | None = None
    virtual_clock: bool = False
    exact: dict[str, bool] = field(default_factory=dict)
    note: str = ""
    reconciles: bool = False  # may end a request with a Reconcile (keep the request's rounds)


class Backend(Protocol):
    """A source of Rounds. `rounds` runs on a worker thread; it checks `stop` between rounds.

    A backend whose `info.reconciles` is set may also yield a Reconcile, which replaces the
    rounds it yielded from `first_index` on by exact ones.
    """

    @property
    def info(self) -> BackendInfo: ...

    def rounds(self, stop: threading.Event) -> Iterator[Round | Reconcile]: ...

    def close(self) -> None: ...
