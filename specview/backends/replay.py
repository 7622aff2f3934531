"""The replay backend: plays one segment of a recording at the recorded pace times `speed`.

`FILE#N` picks the N-th segment of a file that holds several runs (default: the first).
The rounds keep their recorded times, so every gauge shows the numbers of the original run;
the replay runs on that recorded clock (virtual_clock), which pausing does not shift.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from specview.backends.reason import reason_of
from specview.backends.unit import BackendUnit
from specview.boundary.bounds import MAX_CONTEXT_TOKENS, MAX_ROUND_DRAFTS, Invalid, integer, mapping, real, string
from specview.catalog.provenance import checked_provenance
from specview.features.record.recording import Header, read_recording, scan_headers
from specview.kernel.backend import Backend, BackendInfo, BackendKind, Note, Pace
from specview.kernel.errors import BackendError, RecordingError
from specview.kernel.events import Basis, Calibration, Round, StreamItem
from specview.kernel.runspec import BackendOptions, RunSpec, declare
from specview.kernel.stream_kinds import kind_of
from specview.kernel.unmeasured import server_gamma
from specview.texts.catalog import Phrase

T = TypeVar("T")
_SEGMENT = re.compile(r"(?P<path>.+)#(?P<n>[1-9]\d*)")


def split_segment(selector: str) -> tuple[Path, int | None]:
    """`FILE#N` → (FILE, N); a plain path (or one that exists with a '#') → (path, None)."""
    path = Path(selector).expanduser()
    match = _SEGMENT.fullmatch(selector)
    if match and not path.exists():
        return Path(match["path"]).expanduser(), int(match["n"])
    return path, None


@dataclass(frozen=True, slots=True)
class ReplayOptions(BackendOptions):
    """What only a replay takes: the recording, `FILE[#N]`."""

    backend: ClassVar[str] = BackendKind.REPLAY

    recording: str | None = field(default=None, metadata=declare("settings.replay"))


def make_replay_backend(spec: RunSpec) -> ReplayBackend:
    """The backend `replay:FILE[#N]` / `specview replay FILE[#N]` selects."""
    recording = spec.options.recording if isinstance(spec.options, ReplayOptions) else None
    if not recording:
        raise BackendError("backenderr.replay.no_file")
    path, segment = split_segment(recording)
    return ReplayBackend(path, segment=segment or 1, speed=spec.speed)


def recorded_info(header: Header, path: Path) -> BackendInfo:
    """The BackendInfo of the run that made the recording, rebuilt from its header (checked)."""
    backend, settings, models = header.section("backend"), header.section("settings"), header.section("models")
    try:
        name = _opt(backend, "backend.name", string) or "unknown"
        temperature = _opt(settings, "settings.temperature", lambda v, f: real(v, f, 0.0, 1000.0))
        exact = mapping(backend.get("exact") or {}, "backend.exact")
        virtual_clock, reconciles = backend.get("virtual_clock", False), backend.get("reconciles", False)
        if not isinstance(virtual_clock, bool) or not isinstance(reconciles, bool):
            raise Invalid(Phrase("backenderr.replay.flags_not_bool"))
        provenance = checked_provenance(backend.get("provenance"))
        prompt_format = backend.get("prompt_format")  # absent before specview recorded it
        formats = Note.read_all(None if prompt_format is None else [prompt_format], "backend.prompt_format")
        return BackendInfo(
            backend=name,
            label=_opt(backend, "backend.label", string) or _opt(settings, "settings.preset", string) or name,
            gamma=_opt(settings, "settings.gamma", lambda v, f: integer(v, f, 0, MAX_ROUND_DRAFTS)),
            temperature=0.0 if temperature is None else temperature,
            preset=_opt(settings, "settings.preset", string),
            model=_opt(models, "models.model", string),
            draft=_opt(models, "models.draft", string),
            seed=_opt(settings, "settings.seed", lambda v, f: integer(v, f, 0, 2**64 - 1)),
            virtual_clock=virtual_clock,
            exact={str(k): bool(v) for k, v in list(exact.items())[:16]},
            notes=Note.read_all(backend.get("notes"), "backend.notes"),
            note=_opt(backend, "backend.note", string) or "",
            reconciles=reconciles,
            provenance=provenance,
            prompt_format=formats[0] if formats else None,
            prompt_tokens=_opt(backend, "backend.prompt_tokens", lambda v, f: integer(v, f, 0, MAX_CONTEXT_TOKENS)),
        )
    except Invalid as exc:
        raise BackendError("backenderr.replay.bad_header", path=str(path), line=header.line,
                           reason=reason_of(exc)) from None


def _opt(section: dict[str, Any], field: str, check: Callable[[Any, str], T]) -> T | None:
    """The checked value of section[key] (the last part of `field`), None when absent or null."""
    value = section.get(field.rsplit(".", 1)[-1])
    return None if value is None else check(value, field)


class ReplayBackend:
    """Rounds read from a recording, paced by their recorded times (speed 0 = no waiting)."""

    def __init__(self, path: str | Path, *, segment: int = 1, speed: float = 1.0,
                 headers: list[Header] | None = None) -> None:
        """`headers`: the file's `scan_headers`, when the caller has them (one scan for every segment)."""
        self.path = Path(path)
        if headers is None:
            try:
                headers = scan_headers(self.path)
            except RecordingError as exc:
                raise BackendError("backenderr.replay.cannot", error=exc) from None
        self.headers = headers
        if not 1 <= segment <= len(headers):
            raise BackendError("backenderr.replay.no_segment", path=str(self.path), segment=segment,
                               runs=len(headers))
        self.segment = segment
        self.segments = len(headers)
        self.header = headers[segment - 1]
        self.pace = Pace(speed)
        self._drafted = 0  # the longest draft read so far (rounds())
        self.recorded_info = recorded_info(self.header, self.path)
        created = self.header.data.get("created")
        values = {"backend": self.recorded_info.backend,
                  "created": created if isinstance(created, str) and created else "?",
                  "run": str(segment), "runs": str(self.segments)}
        replayed = Note("replay_segment" if self.segments > 1 else "replay", values)
        self._info = replace(self.recorded_info, backend=BackendKind.REPLAY, virtual_clock=True,
                             notes=(replayed, *self.recorded_info.notes), pace=self.pace)

    @property
    def info(self) -> BackendInfo:
        return self._info

    def close(self) -> None:
        """Nothing to release: the file is opened afresh by every `rounds()`."""

    def rounds(self, stop: threading.Event) -> Iterator[StreamItem]:
        """Yield this segment's rounds and what its backend said besides (reconciles, calibrations,
        totals, checks); a damaged line ends it with a BackendError."""
        last_wall: float | None = None
        due = time.monotonic()
        calibrated = self.header.version >= 3
        self._drafted = 0
        try:
            for item in read_recording(self.path, start=self.header):
                if isinstance(item, Header):
                    if item.line != self.header.line:  # the next segment begins
                        self._drafted_as_recorded()
                        return
                    continue
                rnd = kind_of(item).paced_by(item)  # kernel/stream_kinds.py: a round is paced by itself
                if rnd is None:  # no time of its own
                    yield item
                    continue
                if not calibrated:
                    calibrated = True
                    assumed = self._assumed_calibration(rnd)
                    if assumed is not None:
                        yield assumed
                gap = (rnd.t_draft_s or 0.0) + (rnd.t_verify_s or 0.0) if last_wall is None else rnd.t_wall - last_wall
                last_wall = rnd.t_wall
                paced = self._pace(max(0.0, gap), due, stop)
                if paced is None:
                    return
                due = paced
                self._drafted = max(self._drafted, rnd.drafted)
                yield item
        except RecordingError as exc:
            raise BackendError("backenderr.as_is", error=exc) from None
        self._drafted_as_recorded()

    def _drafted_as_recorded(self) -> None:
        """A server's run is recorded with the γ asked (its header is written before the first
        round); what it drafted can differ (llama-server reads its own --spec-draft-n-max). Once
        the segment is read, the replay says the γ the server drafted and the one asked, as the
        live run did by its end (kernel/unmeasured.py)."""
        recorded = self.recorded_info
        if recorded.backend != BackendKind.REMOTE or not self._drafted or self._drafted == recorded.gamma:
            return
        asked = recorded.gamma_asked if recorded.gamma_asked is not None else recorded.gamma
        self.recorded_info = server_gamma(recorded, self._drafted, asked)
        self._info = server_gamma(self._info, self._drafted, asked)

    def _assumed_calibration(self, first: Round) -> Calibration | None:
        """An old (version 1–2) simulator recording has no calibration line: its cost model is
        the simulator's assumption, one target forward per round whatever its width."""
        if self.recorded_info.backend != BackendKind.SIM or not first.t_verify_s or first.t_verify_s <= 0:
            return None
        width = (self.recorded_info.gamma or first.drafted) + 1
        return Calibration(Basis.ASSUMED, first.t_verify_s, (first.t_verify_s,) * width)

    def _pace(self, gap: float, due: float, stop: threading.Event) -> float | None:
        """Sleep until a round `gap` recorded seconds after the last is due; None once stopped."""
        speed = self.pace.speed  # read every round, so the live view's speed keys act at once
        now = time.monotonic()
        if speed <= 0:
            return None if stop.is_set() else now
        due = max(due + gap / speed, now - 0.25)  # never build up a debt to catch up on
        if due > now and stop.wait(due - now):
            return None
        return None if stop.is_set() else due


def _make(spec: RunSpec) -> Backend:
    return make_replay_backend(spec)


BACKEND = BackendUnit(BackendKind.REPLAY, ReplayOptions, _make,
                      no_tree="backenderr.factory.no_tree_replay", no_auto="backenderr.factory.auto_replay")
