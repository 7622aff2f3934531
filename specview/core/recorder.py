"""`--record FILE`: check the path before any UI, then attach a Recorder to each Session.

The first session recorded to a path in a program truncates the file; every later session
recorded to the same path by the same program (a restart or preset switch in the live view)
closes the previous recorder and appends a new segment: a header line, then its rounds.
"""

from __future__ import annotations

import atexit
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from specview.core.backend import BackendInfo
from specview.core.errors import BackendError, RecordingError
from specview.core.events import Calibration, Reconcile, StreamItem
from specview.core.jsonio import dumps
from specview.core.recording import FORMAT, VERSION
from specview.core.runspec import DEFAULT_KEY_ENV, RunSpec
from specview.core.secrets import MASK, MIN_SECRET, known_secrets, public_url
from specview.core.totals import CrossChecked, Totals

if TYPE_CHECKING:
    from specview.core.session import Session

_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
_active: dict[Path, Recorder] = {}
_active_lock = threading.Lock()


def header_record(**fields: Any) -> dict[str, Any]:
    """A header line's object: the format marks first, then `fields` (backend, settings, ...)."""
    from specview import __version__

    return {"type": "header", "format": FORMAT, "version": VERSION, "specview": __version__, **fields}


class Recorder:
    """A Session sink that appends one line per Round and flushes it at once.

    Lines are written by `jsonio.dumps`: secrets masked, and characters a terminal could obey
    (C1 controls, bidi overrides) escaped, so `cat`-ing a recording is harmless. Flushing
    hands each line to the operating system, so killing the process (Ctrl-C, kill -9, a crash)
    loses at most the round being written. `durable=True` also fsyncs every round,
    which only matters if the machine itself goes down, and costs far more.
    """

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any], *,
                 append: bool = False, durable: bool = False) -> None:
        self.path = Path(path)
        self.durable = durable
        self.rounds_written = 0
        self._lock = threading.Lock()
        self._file: IO[str] | None = self.path.open(
            "a" if append else "w", encoding="utf-8", errors="backslashreplace"  # a lone surrogate → JSON escape
        )
        self._write(header)

    def __call__(self, item: StreamItem) -> None:
        """Record one round, reconcile, calibration, request's totals or cross-check (called on the
        producer thread)."""
        with self._lock:
            if self._file is None:
                return  # closed: a late round from a stopped session must not interleave
            if isinstance(item, Reconcile):
                self._write({"type": "reconcile", **item.to_dict()})
                return
            if isinstance(item, Calibration):
                self._write({"type": "calibration", **item.to_dict()})
                return
            if isinstance(item, Totals):
                self._write({"type": "totals", **item.to_dict()})
                return
            if isinstance(item, CrossChecked):
                self._write({"type": "check", **item.to_dict()})
                return
            self._write({"type": "round", **item.to_dict()})
            self.rounds_written += 1

    def _write(self, record: dict[str, Any]) -> None:
        assert self._file is not None
        line = dumps(record, separators=(", ", ": ")) + "\n"
        try:
            self._file.write(line)
            self._file.flush()
            if self.durable:
                os.fsync(self._file.fileno())
        except OSError as exc:
            raise RecordingError(self.path, None, f"cannot write to it ({exc.strerror or exc})") from None

    def close(self) -> None:
        """Close the file; later rounds are ignored. Safe to call twice."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


def check_record_path(path: str | os.PathLike[str]) -> Path:
    """The path to record to; BackendError unless its folder exists and we may write there."""
    file = Path(path).expanduser()
    if file.is_dir():
        raise BackendError(f"cannot record to {path}: it is a folder")
    folder = file.parent if str(file.parent) else Path(".")
    if not folder.is_dir():
        raise BackendError(f"cannot record to {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BackendError(f"cannot record to {path}: the folder {folder} is not writable")
    if file.exists() and not os.access(file, os.W_OK):
        raise BackendError(f"cannot record to {path}: the file is not writable")
    return file


def start_recording(session: Session, path: str | os.PathLike[str], spec: RunSpec) -> Recorder:
    """Record every round `session` produces to `path` (see the module docstring for segments)."""
    file = check_record_path(path)
    header = recording_header(session.backend.info, spec)
    key = file.resolve()
    with _active_lock:
        previous = _active.pop(key, None)
        if previous is not None:
            previous.close()
        try:
            recorder = Recorder(file, header, append=previous is not None)
        except OSError as exc:
            raise BackendError(f"cannot record to {path}: {exc.strerror or exc}") from None
        except RecordingError as exc:
            raise BackendError(f"cannot record to {path}: {exc.reason}") from None
        _active[key] = recorder
    session.add_sink(recorder)
    return recorder


def close_recordings() -> None:
    """Close every open recorder (also run at exit; each round is already flushed)."""
    with _active_lock:
        for recorder in _active.values():
            recorder.close()


atexit.register(close_recordings)


def recording_header(info: BackendInfo, spec: RunSpec) -> dict[str, Any]:
    """The header line for a run: versions, backend, settings, models, prompt — no secrets.

    RunSpec holds no key values (only the *name* of the variable), URLs lose their user
    info and query, and every registered secret (core/secrets.py) and, as a last guard, any
    value of a secret-looking environment variable found anywhere in the header is
    replaced by "***".
    """
    header = header_record(
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        backend={
            "name": info.backend,
            "label": info.label,
            "virtual_clock": info.virtual_clock,
            "reconciles": info.reconciles,
            "exact": dict(info.exact),
            "notes": [note.to_dict() for note in info.notes],
            "note": info.note,
            "provenance": info.provenance,
        },
        settings={
            "preset": info.preset,
            "gamma": info.gamma,
            "temperature": info.temperature,
            "seed": info.seed,
            "lang": spec.lang,
            "speed": spec.speed,
            "max_rounds": spec.max_rounds,
            "max_tokens": spec.max_tokens,
            "gpu_layers": spec.gpu_layers,
            "threads": spec.threads,
            "plain": spec.plain,
            "adaptive": spec.adaptive,
            "demo": spec.demo,
            "url": public_url(spec.url),
            "server": spec.server,
            "raw": spec.raw,
            "api_key_env": spec.api_key_env,
            "replay": spec.replay,
        },
        models={"model": info.model, "draft": info.draft, "target": spec.target, "draft_source": spec.draft},
        prompt=spec.prompt,
    )
    redacted: dict[str, Any] = _redact(header, _secret_values(spec))
    return redacted


def _secret_values(spec: RunSpec) -> set[str]:
    names = {name for name in os.environ if any(word in name.upper() for word in _SECRET_WORDS)}
    names.add(spec.api_key_env or DEFAULT_KEY_ENV)
    from_env = {value for name in names if len(value := os.environ.get(name, "")) >= 8}
    known = {value for value in {spec.api_key or "", *known_secrets()} if len(value) >= MIN_SECRET}
    return from_env | known


def _redact(value: Any, secrets: set[str]) -> Any:
    if isinstance(value, str):
        for secret in sorted(secrets, key=len, reverse=True):  # longest first: a key inside a key
            value = value.replace(secret, MASK)
        return value
    if isinstance(value, dict):
        return {key: _redact(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact(item, secrets) for item in value]
    return value
