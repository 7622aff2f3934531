"""Recordings: JSON Lines, a header line then one line per Round, flushed every round.

    {"type": "header", "format": "specview-recording", "version": 3, "specview": "0.1.0", ...}
    {"type": "calibration", "basis": "measured", "plain_s": ..., "verify_costs_s": [...], ...}
    {"type": "round", "index": 0, "drafted": 3, "tokens": [...], "discarded": [...], "t_wall": ...}
    {"type": "reconcile", "first_index": 0, "rounds": [...]}
    {"type": "totals", "source": "sglext.spec_tokens_details", "drafted": 12, "accepted": 4, ...}
    {"type": "check", "source": "/metrics", "agrees": true, "shown": {...}, "differs_by": {...}}
    ...

A reconcile line (version 2) is what a server told at the end of a request: the exact rounds
that replace the inferred ones from `first_index` on (vLLM's per_step_accepted). Version 3
adds calibration lines (what plain decoding cost: the baseline of the measured speedup) and
a round's discarded drafts. Versions 1 and 2 have neither and are still read. Version 4 adds
totals lines (a server's exact counts at the end of a request, after its rounds) and check lines
(how the server's own counters compared with the counts shown); a file of an earlier version
holds neither, and is read as before.

A file may hold several segments: each later run of the same program (a restart or a preset
switch in the live view) appends a new header followed by its rounds. The reader yields what
it can read and raises RecordingError at the first line it cannot, so a damaged file still
replays up to the damage.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specview.core.bounds import MAX_LINE_BYTES, Invalid
from specview.core.errors import RecordingError
from specview.core.events import Calibration, Reconcile, Round, StreamItem
from specview.core.jsonio import JsonError, loads
from specview.core.text import shown
from specview.core.totals import CrossChecked, Totals

FORMAT = "specview-recording"
VERSION = 4
READABLE = (1, 2, 3, 4)
# the version that introduced each line type
_SINCE = {"round": 1, "reconcile": 2, "calibration": 3, "totals": 4, "check": 4}
_HEADER_PREFIX = '{"type": "header"'


@dataclass(frozen=True, slots=True)
class Header:
    """The header of one segment, as read (`line` is its 1-based line number)."""

    data: dict[str, Any]
    line: int

    @property
    def version(self) -> int:
        return int(self.data["version"])

    def section(self, key: str) -> dict[str, Any]:
        """A dict-valued part of the header ({} when absent or malformed)."""
        value = self.data.get(key)
        return value if isinstance(value, dict) else {}


def _parse(path: Path, number: int, line: str) -> dict[str, Any]:
    try:
        record = loads(line)
    except JsonError as exc:
        if not line.endswith("\n"):  # only the last line can lack one: a write cut short
            reason = "the line is incomplete (the recording was cut off while it was being written)"
            raise RecordingError(path, number, reason) from None
        raise RecordingError(path, number, str(exc)) from None
    if not isinstance(record, dict):
        raise RecordingError(path, number, "expected a JSON object")
    return record


def _header(path: Path, number: int, record: dict[str, Any]) -> Header:
    if record.get("format") != FORMAT:
        raise RecordingError(path, number, "not a specview recording (no specview-recording header)")
    version = record.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise RecordingError(path, number, f"the header has no valid version (got {shown(version)})")
    if version not in READABLE:
        made_by = shown(record.get("specview", "an unknown version"))
        readable = f"{READABLE[0]} to {READABLE[-1]}"
        raise RecordingError(path, number, f"recording format version {version} is not supported: this specview "
                                           f"reads versions {readable} (the file was made by specview {made_by})")
    return Header(record, number)


def _item(path: Path, number: int, record: dict[str, Any]) -> StreamItem:
    kind = record.get("type")
    try:
        if kind == "reconcile":
            return Reconcile.from_dict(record)
        if kind == "calibration":
            return Calibration.from_dict(record)
        if kind == "totals":
            return Totals.from_dict(record)
        if kind == "check":
            return CrossChecked.from_dict(record)
        return Round.from_dict(record)
    except Invalid as exc:
        raise RecordingError(path, number, f"not a valid {kind}: {exc}") from None


def read_recording(path: str | os.PathLike[str], from_line: int = 1) -> Iterator[Header | StreamItem]:
    """Yield every segment's Header and its Rounds (Reconciles, Calibrations, Totals, checks) in file order.

    Raises RecordingError (file and line in the message) at the first line that cannot be read,
    after yielding everything before it. An empty line is skipped; a missing file, an empty file
    or a first line that is not a header of a known version fail before anything is yielded.
    `from_line` (a header's line, from `scan_headers`) starts there without decoding what is before.
    """
    file = Path(path)
    started = False
    for number, line in _lines(file, strict=True, start=from_line):
        record = _parse(file, number, line)
        kind = record.get("type")
        if not started and kind != "header":
            raise RecordingError(file, number, "not a specview recording (the first line is not a header)")
        if kind == "header":
            header = _header(file, number, record)
            started = True
            yield header
        elif isinstance(kind, str) and header.version >= _SINCE.get(kind, VERSION + 1):
            yield _item(file, number, record)
        else:
            raise RecordingError(file, number, f"unknown line type {shown(kind)}")
    if not started:
        raise RecordingError(file, None, "the file is empty (not a specview recording)")


def scan_headers(path: str | os.PathLike[str]) -> list[Header]:
    """Every segment's header, cheaply (round lines are not decoded).

    The first line must be a valid header (else RecordingError); scanning stops quietly at a
    later header line it cannot read, since playing that segment reports the error in place.
    """
    file = Path(path)
    headers: list[Header] = []
    for number, line in _lines(file):
        if not headers:
            record = _parse(file, number, line)
            if record.get("type") != "header":
                raise RecordingError(file, number, "not a specview recording (the first line is not a header)")
            headers.append(_header(file, number, record))
        elif line.startswith(_HEADER_PREFIX):
            try:
                headers.append(_header(file, number, _parse(file, number, line)))
            except RecordingError:
                break
    if not headers:
        raise RecordingError(file, None, "the file is empty (not a specview recording)")
    return headers


def _lines(file: Path, *, strict: bool = False, start: int = 1) -> Iterator[tuple[int, str]]:
    """Non-blank lines with their numbers from line `start` on, decoded one by one so an error
    names its own line. `strict`: a line too long or not UTF-8 is an error (else skipped or
    decoded with replacement characters)."""
    try:
        stream = file.open("rb")
    except FileNotFoundError:
        raise RecordingError(file, None, "no such file") from None
    except OSError as exc:
        raise RecordingError(file, None, f"cannot open it ({exc.strerror or exc})") from None
    with stream:
        number = 0
        while raw := stream.readline(MAX_LINE_BYTES + 1):
            number += 1
            checked = strict and number >= start
            if len(raw) > MAX_LINE_BYTES:
                if checked:
                    reason = f"the line is longer than {MAX_LINE_BYTES // 2**20} MiB (not a recording line)"
                    raise RecordingError(file, number, reason)
                while raw and not raw.endswith(b"\n"):  # skip the rest; playing it reports it
                    raw = stream.readline(MAX_LINE_BYTES)
                continue
            if number < start:
                continue
            try:
                line = raw.decode("utf-8", errors="strict" if checked else "replace")
            except UnicodeDecodeError:
                raise RecordingError(file, number, "not UTF-8 text") from None
            if line.strip():
                yield number, line
