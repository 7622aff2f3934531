"""What every backend provides: Rounds for a prompt, from its own thread, until stopped."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from specview.boundary.bounds import MAX_NOTE_VALUES, MAX_NOTES, Invalid, mapping, sequence, string
from specview.boundary.text import shown
from specview.kernel.events import StreamItem


@dataclass(slots=True)
class Pace:
    """The pace of a backend that follows a clock of its own (simulator, replay).

    1 = the modelled or recorded pace, 2 = twice as fast, 0 = flat out. The backend reads it
    every round, so a change acts at once; the UI changes it through `BackendInfo.pace`.
    """

    speed: float

    def scale(self, factor: float) -> None:
        """Faster or slower, within 0.01×–1000× (flat out stays flat out)."""
        if self.speed > 0:
            self.speed = min(1000.0, max(0.01, self.speed * factor))


@dataclass(frozen=True, slots=True)
class Note:
    """A sentence about a run for the side panel: the catalog text `note.<id>` with `values`
    filled in. Values are data (builds, model names, counts): the UI sanitizes them."""

    id: str
    values: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "values": dict(self.values)}

    @classmethod
    def read_all(cls, data: Any, where: str) -> tuple[Note, ...]:
        """Notes read back from outside (a recording, a sweep file): a short list of
        {"id": str, "values": {str: str}}, every part checked (bounds.Invalid names it)."""
        if data is None:
            return ()
        notes = []
        for i, item in enumerate(sequence(data, where, MAX_NOTES)):
            at = f"{where}[{i}]"
            entry = mapping(item, at)
            values = mapping(entry.get("values", {}), f"{at}.values")
            if len(values) > MAX_NOTE_VALUES:
                raise Invalid(f"{at}.values has {len(values)} entries, at most {MAX_NOTE_VALUES} expected")
            notes.append(cls(string(entry.get("id"), f"{at}.id"),
                             {str(k): string(v, f"{at}.values.{shown(k)}") for k, v in values.items()}))
        return tuple(notes)


class BackendKind(StrEnum):
    """The backends specview has: what `BackendInfo.backend` holds for a run of ours (a
    recording's header keeps the name of the backend that made it, whatever it was)."""

    SIM = "sim"
    LLAMA = "llama"
    REMOTE = "openai"
    REPLAY = "replay"


class Origin(StrEnum):
    """Where a run's timed numbers come from: this machine's clock, or the virtual clock of a
    simulator's cost model or of a recording."""

    MEASURED = "measured"
    SIMULATED = "simulated"
    RECORDED = "recorded"


class Exact(StrEnum):
    """The keys of `BackendInfo.exact`: the numbers a backend either reports (True) or leaves
    specview to infer (False); a key left out is a number the backend does not report. The
    values are the words recordings write."""

    ACCEPTANCE = "acceptance"
    TAU = "tau"
    PER_POSITION = "per_position"
    TOKENS_PER_SECOND = "tokens_per_second"
    DRAFT_COST = "draft_cost"


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
    exact: dict[str, bool] = field(default_factory=dict)  # keyed by `Exact` (a recording may hold others)
    notes: tuple[Note, ...] = ()  # what the side panel says about the run, in the user's language
    note: str = ""  # text from outside to show as is (a recording made before notes had ids)
    reconciles: bool = False  # may end a request with a Reconcile (keep the request's rounds)
    pace: Pace | None = None  # set when the run's pace can be changed (+ / - keys)
    cpu_bound: bool = False  # never waits (a simulator flat out): the UI runs it in a child process
    # Where a model's numbers come from (the simulator's preset): {"fields", "outputs", ...};
    # empty when every number is measured. `outputs` maps a gauge to cited / derived / assumed.
    provenance: dict[str, Any] = field(default_factory=dict)
    # How a local model got its prompt (raw completion, which chat template from where): the
    # note `prompt_*` (texts/prompts.*.toml); None where specview does not tokenize the prompt.
    prompt_format: Note | None = None
    # The prompt's length in tokens where known: context before the first output token, so
    # acceptance by context position counts from it (kernel/context_acceptance.py).
    prompt_tokens: int | None = None
    # The γ asked for where the engine drafted another (a server that reads its own draft max):
    # `gamma` is then the engine's, and a note says so (kernel/unmeasured.py: server_gamma)
    gamma_asked: int | None = None

    @property
    def run_label(self) -> str:
        """One run in a few characters, as compare panes, the summary and notifications name it:
        `sim:qwen3.6-mtp γ3 T1`. Built from data (ids, model names): sanitize before showing."""
        gamma = "" if self.gamma is None else f" γ{self.gamma}"
        return f"{self.backend}:{self.label}{gamma} T{self.temperature:g}"

    @property
    def origin(self) -> Origin:
        """Where the timed numbers come from (the one place that tells recorded from simulated):
        a virtual clock is a replay's recorded one or else a simulator's."""
        if not self.virtual_clock:
            return Origin.MEASURED
        return Origin.RECORDED if self.backend == BackendKind.REPLAY else Origin.SIMULATED


class Backend(Protocol):
    """A source of Rounds. `rounds` runs on a worker thread; it checks `stop` between rounds.

    A backend whose `info.reconciles` is set may also yield a Reconcile, which replaces the
    rounds it yielded from `first_index` on by exact ones. Any backend may yield a
    Calibration: what plain decoding costs, the baseline of the measured speedup. After a
    request's rounds it may yield the server's Totals for it and a CrossChecked (kernel/totals.py).
    """

    @property
    def info(self) -> BackendInfo: ...

    def rounds(self, stop: threading.Event) -> Iterator[StreamItem]: ...

    def close(self) -> None: ...


@runtime_checkable
class Interruptible(Protocol):
    """A backend that may block on something outside (a network read): `interrupt` (any thread)
    unblocks a `rounds()` in progress so that stopping is prompt; the backend stays usable."""

    def interrupt(self) -> None: ...
