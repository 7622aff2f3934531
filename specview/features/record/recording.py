"""Recordings: JSON Lines, a header line then one line per Round, flushed every round.

    {"type": "header", "format": "specview-recording", "version": 3, "specview": "0.1.0", ...}
    {"type": "calibration", "basis": "measured", "plain_s": ..., "verify_costs_s": [...], "plain_samples_s": [...], ...}
    {"type": "round", "index": 0, "drafted": 3, "tokens": [...], "discarded": [...], "t_wall": ...}
    {"type": "reconcile", "first_index": 0, "rounds": [...]}
    {"type": "totals", "source": "sglext.spec_tokens_details", "drafted": 12, "accepted": 4, ...}
    {"type": "check", "source": "/metrics", "agrees": true, "shown": {...}, "differs_by": {...}}
    {"type": "end", "reason": "backenderr.engine.crashed", "text": "the engine (llama.cpp) died ..."}
    ...

A reconcile line (version 2) is what a server told at the end of a request: the exact rounds
that replace the inferred ones from `first_index` on (vLLM's per_step_accepted). Version 3
adds calibration lines (what plain decoding cost: the baseline of the measured speedup) and
a round's discarded drafts. Versions 1 and 2 have neither and are still read. Version 4 adds
totals lines (a server's exact counts at the end of a request, after its rounds) and check lines
(how the server's own counters compared with the counts shown); a file of an earlier version
holds neither, and is read as before. A calibration line may carry the repeats behind its values
(`plain_samples_s`, `verify_samples_s`: the spread of the baseline); they are optional within
version 4, so a file written before them reads as a calibration without a spread, and a reader
that predates them ignores them. Version 5 adds the end line: a run that ended early (its engine
crashed, its server failed) says why as its segment's last line; the replay reads past it.

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

from specview.boundary.bounds import MAX_LINE_BYTES, Invalid
from specview.boundary.jsonio import JsonError, loads
from specview.boundary.safe_files import Refused, open_regular
from specview.boundary.text import shown
from specview.kernel.errors import RecordingError
from specview.kernel.events import StreamItem
from specview.kernel.os_reason import os_reason
from specview.kernel.stream_kinds import RECORDED
from specview.kernel.totals import Totals, TotalsSum
from specview.texts.catalog import Phrase

FORMAT = "specview-recording"
VERSION = 5
READABLE = (1, 2, 3, 4, 5)
_END_SINCE = 5  # the version that introduced the end line (a stream item's own: kernel/stream_kinds.py)
_HEADER_PREFIX = b'{"type": "header"'
_TOO_LONG = Phrase("recorderr.too_long", mib=MAX_LINE_BYTES // 2**20)


@dataclass(frozen=True, slots=True)
class Header:
    """The header of one segment, as read (`line` is its 1-based line number, `offset` where it starts)."""

    data: dict[str, Any]
    line: int
    offset: int = 0

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
            raise RecordingError(path, number, Phrase("recorderr.incomplete")) from None
        raise RecordingError(path, number, Phrase("recorderr.not_json", detail=str(exc))) from None
    if not isinstance(record, dict):
        raise RecordingError(path, number, Phrase("recorderr.not_object"))
    return record


def _header(path: Path, number: int, record: dict[str, Any], offset: int = 0) -> Header:
    if record.get("format") != FORMAT:
        raise RecordingError(path, number, Phrase("recorderr.no_header"))
    version = record.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise RecordingError(path, number, Phrase("recorderr.no_version", got=shown(version)))
    if version not in READABLE:
        made_by = shown(record["specview"]) if "specview" in record else Phrase("recorderr.unknown_version")
        raise RecordingError(path, number, Phrase("recorderr.version", version=version, first=READABLE[0],
                                                  last=READABLE[-1], made_by=made_by))
    return Header(record, number, offset)


def _item(path: Path, number: int, record: dict[str, Any], kind: str) -> StreamItem:
    """The stream item a line of type `kind` (a key of RECORDED) holds."""
    try:
        item: StreamItem = RECORDED[kind].decode(record)
    except Invalid as exc:
        raise RecordingError(path, number, Phrase("recorderr.invalid", kind=kind, detail=str(exc))) from None
    return item


def _readable(kind: object, version: int) -> str | None:
    """`kind` when a file of `version` may hold a stream item's line of that type, else None."""
    if not isinstance(kind, str):
        return None
    recorded = RECORDED.get(kind)
    return kind if recorded is not None and version >= recorded.since else None


def _add_totals(sums: TotalsSum, totals: Totals, path: Path, number: int) -> None:
    """Add a request's totals to its segment's, refused at this line past the bound (the sum's words)."""
    try:
        sums.add(totals)
    except Invalid as exc:
        raise RecordingError(path, number, exc.args[0]) from None


def read_recording(path: str | os.PathLike[str], start: Header | None = None) -> Iterator[Header | StreamItem]:
    """Yield every segment's Header and its Rounds (Reconciles, Calibrations, Totals, checks) in file order.

    Raises RecordingError (file and line in the message) at the first line that cannot be read,
    after yielding everything before it — a totals line too, when the segment's totals so far and
    its own add up past the bound on a count. An empty line is skipped; a missing file, one that is not
    a regular file, an empty file or a first line that is not a header of a known version fail
    before anything is yielded. `start` (a header from `scan_headers`) begins at that header,
    without reading what is before it.
    """
    file = Path(path)
    started = False
    sums = TotalsSum()  # the segment's totals so far: Metrics adds them up the same way
    for number, offset, raw in _lines(file, start):
        if raw is None:
            raise RecordingError(file, number, _TOO_LONG)
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordingError(file, number, Phrase("recorderr.not_utf8")) from None
        if not line.strip():
            continue
        record = _parse(file, number, line)
        kind = record.get("type")
        if not started and kind != "header":
            raise RecordingError(file, number, Phrase("recorderr.first_not_header"))
        if kind == "header":
            header = _header(file, number, record, offset)
            started = True
            sums = TotalsSum()
            yield header
        elif kind == "end" and header.version >= _END_SINCE:
            continue  # why the run ended early: said when it was recorded, nothing to replay
        elif readable := _readable(kind, header.version):
            item = _item(file, number, record, readable)
            if isinstance(item, Totals):  # not a dispatch: the bound on the segment's sum is this reader's own
                _add_totals(sums, item, file, number)
            yield item
        else:
            raise RecordingError(file, number, Phrase("recorderr.line_type", kind=shown(kind)))
    if not started:
        raise RecordingError(file, None, Phrase("recorderr.empty"))


def scan_headers(path: str | os.PathLike[str]) -> list[Header]:
    """Every segment's header with where it starts, cheaply (round lines are not decoded).

    The first line must be a valid header (else RecordingError, a line over the bound included);
    scanning stops quietly at a later header line it cannot read, since playing that segment
    reports the error in place.
    """
    file = Path(path)
    headers: list[Header] = []
    for number, offset, raw in _lines(file):
        if not headers:
            if raw is None:
                raise RecordingError(file, number, _TOO_LONG)
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            record = _parse(file, number, line)
            if record.get("type") != "header":
                raise RecordingError(file, number, Phrase("recorderr.first_not_header"))
            headers.append(_header(file, number, record, offset))
        elif raw is not None and raw.startswith(_HEADER_PREFIX):
            try:
                headers.append(_header(file, number, _parse(file, number, raw.decode("utf-8", "replace")), offset))
            except RecordingError:
                break
    if not headers:
        raise RecordingError(file, None, Phrase("recorderr.empty"))
    return headers


def _lines(file: Path, start: Header | None = None) -> Iterator[tuple[int, int, bytes | None]]:
    """(number, byte offset, bytes) of each line from `start` on (the file's beginning by default),
    so an error names its own line; the bytes are None for a line over MAX_LINE_BYTES, whose rest
    is skipped only if the reader asks for the next line. Only a regular file is opened."""
    try:
        stream = open_regular(file)
    except FileNotFoundError:
        raise RecordingError(file, None, Phrase("recorderr.no_file")) from None
    except Refused as exc:
        raise RecordingError(file, None, Phrase("recorderr.refused", reason=os_reason(exc))) from None
    except OSError as exc:
        raise RecordingError(file, None, Phrase("recorderr.cannot_open", reason=os_reason(exc))) from None
    with stream:
        number, offset = (start.line - 1, start.offset) if start else (0, 0)
        stream.seek(offset)
        while raw := stream.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                yield number, offset, None
                offset += len(raw)
                while raw and not raw.endswith(b"\n"):
                    raw = stream.readline(MAX_LINE_BYTES)
                    offset += len(raw)
                continue
            yield number, offset, raw
            offset += len(raw)
