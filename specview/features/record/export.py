"""Export a run: its recording (JSON Lines, features/record/recording.py) and its Markdown report side by side."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from specview.boundary.safe_files import Refused, open_new
from specview.features.record.markdown import markdown_report
from specview.features.record.recorder import Recorder
from specview.kernel.backend import BackendInfo
from specview.kernel.errors import RecordingError, SpecviewError
from specview.kernel.events import Calibration, Round
from specview.kernel.metrics_snapshot import MetricsSnapshot
from specview.kernel.os_reason import os_reason

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
MAX_TRIES = 1000  # names tried after the first is taken (exports of one run in one second)


@dataclass(frozen=True, slots=True)
class Exported:
    recording: Path
    report: Path
    taken: Path | None = None  # the name first chosen, when a file already had it (a new one was used)


def export_stem(info: BackendInfo, now: datetime | None = None) -> str:
    """A file name base that says what and when: `specview-glm-5.2-mtp-20250101-120000`."""
    what = _UNSAFE_NAME.sub("-", info.preset or info.backend).strip("-.")[:40] or "run"
    return f"specview-{what}-{(now or datetime.now()).strftime('%Y%m%d-%H%M%S')}"


def _stems(stem: str) -> Iterator[str]:
    yield stem
    for n in range(2, MAX_TRIES + 1):
        yield f"{stem}-{n}"


def _claim(folder: Path, stem: str, header: dict[str, Any]) -> tuple[str, Recorder, IO[str], Path | None]:
    """The first free `stem`, `stem-2`, … with both files created (never through a link, 0600): the
    recorder (its header written), the report's open file, and the first name that was taken."""
    taken: Path | None = None
    for candidate in _stems(stem):
        recording, report = folder / f"{candidate}.jsonl", folder / f"{candidate}.md"
        try:
            out = open_new(report)
        except (FileExistsError, Refused):  # a file, or a link planted at the name we would pick
            taken = taken or report
            continue
        try:
            return candidate, Recorder(recording, header), out, taken
        except (FileExistsError, Refused):
            out.close()
            os.unlink(report)  # ours, just made empty; its twin's name is taken
            taken = taken or recording
    raise SpecviewError("recorderr.names_taken", folder=folder, stem=stem, most=MAX_TRIES)


def export_run(folder: Path, header: dict[str, Any], info: BackendInfo, snap: MetricsSnapshot,
               rounds: Sequence[Round], *, lang: str = "en", dropped_rounds: int = 0,
               calibrations: Sequence[Calibration] = ()) -> Exported:
    """Write `<stem>.jsonl` (header, the run's calibrations — its speedup's baseline — and rounds) and
    `<stem>.md` into `folder`, under a new name when one is taken (nothing is overwritten, nothing is
    written through a link); SpecviewError if it cannot. `header` is `recording_header`'s, masked
    once for both files."""
    try:
        stem, recorder, out, taken = _claim(folder, export_stem(info), header)
        with out:
            try:
                for cal in calibrations:
                    recorder(cal)
                for rnd in rounds:
                    recorder(rnd)
            finally:
                recorder.close()
            out.write(markdown_report(header, info, snap, rounds, lang=lang, recording=recorder.path.name,
                                      dropped_rounds=dropped_rounds))
    except OSError as exc:
        raise SpecviewError("recorderr.cannot_export", folder=folder, reason=os_reason(exc)) from None
    except RecordingError as exc:
        raise SpecviewError("recorderr.cannot_export", folder=folder, reason=exc.reason) from None
    return Exported(recorder.path, folder / f"{stem}.md", taken)
