"""How busy the machine was while a calibration timed its forwards: other work wanting a core, and the cores.

A calibration times the target's forwards at one moment; when other work holds the cores then, the
timings measure that work as much as the model (llama.cpp's threads wait on each other, so one
thread pushed off its core stretches the whole forward). The load read beside the timings is the
evidence a disturbed calibration's reason cites (kernel/contended.py); it is never a signal on its
own: a machine that is busy but steady measures the run and its baseline alike.

Two readings, whichever the system has:
- **runnable** (Linux): /proc/loadavg's fourth field "R/T" counts the tasks (threads) that are
  runnable this instant, system-wide; our own runnable threads (/proc/<pid>/task/*/stat, state R:
  the reader at least) are taken off, the parent's too (a local run's engine is a child of the UI
  process: backends/local/engine_process.py), so `others` is what else wanted a core.
- **loadavg** (elsewhere): the 1-minute load average (os.getloadavg), ours included, smoothed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from specview.boundary.bounds import Invalid, integer, mapping, real, string
from specview.boundary.text import shown

MAX_CORES = 1 << 16
MAX_OTHERS = 1e6


class LoadKind(StrEnum):
    """Which reading `Load.others` is (the words recordings and `bench --json` use)."""

    RUNNABLE = "runnable"  # other tasks runnable at one instant (Linux /proc)
    LOADAVG = "loadavg"  # the 1-minute load average, the run's own work included


@dataclass(frozen=True, slots=True)
class Load:
    """Other work wanting a core (`kind` says which reading), and the machine's cores."""

    others: float
    cores: int
    kind: LoadKind = LoadKind.RUNNABLE

    def __post_init__(self) -> None:
        if not 0 <= self.others <= MAX_OTHERS or not 1 <= self.cores <= MAX_CORES:
            raise ValueError(f"a load needs 0 ≤ others and 1 ≤ cores, got {self.others} on {self.cores}")
        object.__setattr__(self, "kind", LoadKind(self.kind))

    def to_dict(self) -> dict[str, Any]:
        return {"others": self.others, "cores": self.cores, "kind": str(self.kind)}

    @classmethod
    def from_dict(cls, data: Any, field: str = "load") -> Load:
        """A load read from outside (a recording): every field checked (bounds.Invalid names it)."""
        data = mapping(data, field)
        kind = string(data.get("kind"), f"{field}.kind")
        if kind not in {k.value for k in LoadKind}:
            raise Invalid(f"{field}.kind is {shown(kind)}, expected one of {', '.join(k.value for k in LoadKind)}")
        return cls(real(data.get("others"), f"{field}.others", 0.0, MAX_OTHERS),
                   integer(data.get("cores"), f"{field}.cores", 1, MAX_CORES), LoadKind(kind))


LoadSource = Callable[[], Load | None]  # what the engine reads beside its timings (tests pass a fake)


def busiest(loads: Iterable[Load | None]) -> Load | None:
    """The load with the most other work (None when none was read)."""
    return max((load for load in loads if load is not None), key=lambda load: load.others, default=None)


def sample_load(proc: Path = Path("/proc")) -> Load | None:
    """The load now: runnable tasks other than ours where /proc tells them, else the 1-minute load
    average; None where neither can be read."""
    cores = os.cpu_count() or 1
    try:
        runnable = int((proc / "loadavg").read_text(encoding="ascii").split()[3].split("/")[0])
        ours = sum(1 for pid in ("self", str(os.getppid())) if (proc / pid / "task").is_dir()
                   for task in (proc / pid / "task").iterdir() if _running(task / "stat"))
        return Load(float(max(0, runnable - max(1, ours))), cores, LoadKind.RUNNABLE)
    except (OSError, ValueError, IndexError):
        pass
    try:
        return Load(round(os.getloadavg()[0], 2), cores, LoadKind.LOADAVG)
    except (OSError, AttributeError, ValueError):
        return None


def _running(stat: Path) -> bool:
    """Whether a task's state (the field after its name in parentheses) is R; False when it is gone."""
    try:
        return stat.read_text(encoding="ascii", errors="replace").rsplit(")", 1)[1].split()[0] == "R"
    except (OSError, IndexError):
        return False
