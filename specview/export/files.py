"""Export a run: its recording (JSON Lines, the core writer) and its Markdown report side by side."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from specview.core.backend import BackendInfo
from specview.core.errors import SpecviewError
from specview.core.events import Calibration, Round
from specview.core.metrics import MetricsSnapshot
from specview.core.recorder import Recorder
from specview.export.markdown import markdown_report

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class Exported:
    recording: Path
    report: Path


def export_stem(info: BackendInfo, now: datetime | None = None) -> str:
    """A file name base that says what and when: `specview-glm-5.2-mtp-20250101-120000`."""
    what = _UNSAFE_NAME.sub("-", info.preset or info.backend).strip("-.")[:40] or "run"
    return f"specview-{what}-{(now or datetime.now()).strftime('%Y%m%d-%H%M%S')}"


def free_stem(folder: Path, stem: str) -> str:
    """`stem`, or `stem-2`, `stem-3`… so that neither of the two files exists yet."""
    candidate, n = stem, 1
    while (folder / f"{candidate}.jsonl").exists() or (folder / f"{candidate}.md").exists():
        n += 1
        candidate = f"{stem}-{n}"
    return candidate


def export_run(folder: Path, header: Mapping[str, Any], info: BackendInfo, snap: MetricsSnapshot,
               rounds: Sequence[Round], *, lang: str = "en", dropped_rounds: int = 0,
               calibrations: Sequence[Calibration] = ()) -> Exported:
    """Write `<stem>.jsonl` (header, the run's calibrations — its speedup's baseline — and rounds) and
    `<stem>.md` into `folder`; SpecviewError if it cannot."""
    try:
        stem = free_stem(folder, export_stem(info))
        recording, report = folder / f"{stem}.jsonl", folder / f"{stem}.md"
        recorder = Recorder(recording, dict(header))
        try:
            for cal in calibrations:
                recorder(cal)
            for rnd in rounds:
                recorder(rnd)
        finally:
            recorder.close()
        report.write_text(markdown_report(header, info, snap, rounds, lang=lang, recording=recording.name,
                                          dropped_rounds=dropped_rounds), encoding="utf-8")
    except OSError as exc:
        raise SpecviewError(f"cannot export to {folder}: {exc.strerror or exc}") from None
    return Exported(recording, report)
