"""`e` in the live view: the run's recording and report written on a worker thread, then said where.

The files are written by features/record/export.py (0600, never through a link, never over an
existing file: a taken name is said with the name written instead); this module gathers what the
session holds at the moment of the key and reports the outcome as a notification in the screen's
language.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from textual.screen import Screen

from specview.kernel.backend import BackendInfo
from specview.kernel.errors import SpecviewError, describe_error
from specview.kernel.events import Calibration, Round
from specview.kernel.metrics_snapshot import MetricsSnapshot
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.texts.catalog import fill, text
from specview.tui.notify import notify_safe


def export_session(screen: Screen[Any], session: Session, spec: RunSpec, export_dir: str | None, lang: str) -> None:
    """Write the run so far into `export_dir` (else the working folder), off the UI thread."""
    from specview.features.record.recorder import recording_header

    rounds = list(session.history)
    if not rounds:
        screen.notify(text("term.nothing_to_export", lang), severity="warning")
        return
    header = recording_header(session.backend.info, spec)
    folder = Path(export_dir).expanduser() if export_dir else Path.cwd()
    job = partial(_export, screen, lang, folder, header, session.backend.info, session.metrics.snapshot(), rounds,
                  session.dropped_rounds, session.calibrations)
    screen.run_worker(job, thread=True, group="export", exit_on_error=False)


def _export(screen: Screen[Any], lang: str, folder: Path, header: dict[str, Any], info: BackendInfo,
            snap: MetricsSnapshot, rounds: list[Round], dropped: int, calibrations: tuple[Calibration, ...]) -> None:
    """On a worker thread: write the files, then say where (or why not) on the UI thread."""
    from specview.features.record.export import export_run

    try:
        done = export_run(folder, header, info, snap, rounds, lang=lang, dropped_rounds=dropped,
                          calibrations=calibrations)
    except SpecviewError as exc:
        screen.app.call_from_thread(notify_safe, screen, describe_error(exc, lang),
                                    title=text("term.export_failed", lang), severity="error")
        return
    paths = fill("term.exported", lang, recording=done.recording, report=done.report)
    if done.taken is not None:  # never overwritten: say which name was taken and what was written instead
        written = done.report if done.taken.suffix == done.report.suffix else done.recording
        paths += "\n" + fill("files.export_renamed", lang, taken=done.taken.name, written=written.name)
    screen.app.call_from_thread(notify_safe, screen, paths, title=text("term.exported_title", lang), timeout=15)
