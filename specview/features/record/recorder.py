"""`--record FILE`: check the path before any UI, then attach a Recorder to each Session.

The first session recorded to a path in a program creates the file (boundary/safe_files.py: never
through a link, mode 0600); a file already there is refused unless the user gave `--force`, and
then replaced by a new one. Every later session recorded to the same path by the same program (a
restart or preset switch in the live view) closes the previous recorder and appends a new
segment, a header line then its rounds, to the same file (refused if another file took its name).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from specview.boundary.jsonio import Masked, dumps, masked
from specview.boundary.safe_files import check_new, open_append, open_new
from specview.boundary.secrets import public_url, secret_name
from specview.features.record.recording import FORMAT, VERSION
from specview.kernel.backend import BackendInfo
from specview.kernel.errors import BackendError, RecordingError
from specview.kernel.events import Round, StreamItem
from specview.kernel.os_reason import os_reason
from specview.kernel.runspec import DEFAULT_KEY_ENV, RunSpec
from specview.kernel.stream_kinds import kind_of
from specview.texts.catalog import Phrase

if TYPE_CHECKING:
    from specview.kernel.session import Session

_active: dict[Path, Recorder] = {}
_may_replace: set[Path] = set()  # paths whose file the user let the first recording replace (--force)
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

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any], *, durable: bool = False,
                 file: IO[str] | None = None) -> None:
        """Write to `file` (opened by the caller, see `start_recording`), else to a new file at `path`
        (FileExistsError when the name is taken)."""
        self.path = Path(path)
        self.durable = durable
        self.rounds_written = 0
        self._lock = threading.Lock()
        self._file: IO[str] | None = file if file is not None else open_new(self.path)
        self.identity = _identity(self._file)
        self._write(header)

    def __call__(self, item: StreamItem) -> None:
        """Record one item as its kind's line (kernel/stream_kinds.py; a kind that is not recorded is
        skipped), called on the producer thread."""
        recorded = kind_of(item).recorded
        if recorded is None:
            return
        with self._lock:
            if self._file is None:
                return  # closed: a late round from a stopped session must not interleave
            self._write({"type": recorded.word, **item.to_dict()})
            if type(item) is Round:
                self.rounds_written += 1

    def ended(self, reason: Phrase | str) -> None:
        """The run ended early (its engine crashed, a server failed): an end record says why, so a
        recording cut short is told from one that ran to its end."""
        with self._lock:
            if self._file is None:
                return
            key = reason.key if isinstance(reason, Phrase) else None
            self._write({"type": "end", "reason": key, "text": str(reason)})

    def _write(self, record: dict[str, Any]) -> None:
        assert self._file is not None
        line = dumps(record, separators=(", ", ": ")) + "\n"
        try:
            self._file.write(line)
            self._file.flush()
            if self.durable:
                os.fsync(self._file.fileno())
        except OSError as exc:
            why = Phrase("recorderr.cannot_write", reason=os_reason(exc))
            raise RecordingError(self.path, None, why) from None

    def close(self) -> None:
        """Close the file; later rounds are ignored. Safe to call twice."""
        with self._lock:
            if self._file is not None:
                with contextlib.suppress(OSError):  # what it cannot flush is the failed write, already reported
                    self._file.close()
                self._file = None


def check_record_path(path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """The path to record to; BackendError unless its folder exists and we may write there, and
    nothing has the name (a regular file may, with `force`: the first recording replaces it)."""
    file = Path(path).expanduser()
    if file.is_dir():
        raise BackendError("recorderr.to_folder", path=path)
    folder = file.parent if str(file.parent) else Path(".")
    if not folder.is_dir():
        raise BackendError("recorderr.no_folder", path=path, folder=folder)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BackendError("recorderr.read_only", path=path, folder=folder)
    key = _key(file)
    if key in _active:
        return file  # this program's own recording: the next run is appended
    try:
        check_new(file, replace=force or key in _may_replace)
    except FileExistsError:
        raise BackendError("recorderr.exists", path=path) from None
    except OSError as exc:
        raise BackendError("recorderr.cannot_record", path=path, reason=os_reason(exc)) from None
    if force and os.path.lexists(file):
        _may_replace.add(key)
    return file


def start_recording(session: Session, path: str | os.PathLike[str], spec: RunSpec) -> Recorder:
    """Record every round `session` produces to `path` (see the module docstring for segments)."""
    file = check_record_path(path)
    header = recording_header(session.backend.info, spec)
    key = _key(file)
    with _active_lock:
        previous = _active.pop(key, None)
        if previous is not None:
            previous.close()
        try:
            if previous is None:
                stream = open_new(file, replace=key in _may_replace)
                _may_replace.discard(key)
            else:
                stream = open_append(file)
                if _identity(stream) != previous.identity:
                    stream.close()
                    raise BackendError("recorderr.replaced", path=path)
            recorder = Recorder(file, header, file=stream)
        except FileExistsError:
            raise BackendError("recorderr.exists", path=path) from None
        except OSError as exc:
            raise BackendError("recorderr.cannot_record", path=path, reason=os_reason(exc)) from None
        except RecordingError as exc:
            raise BackendError("recorderr.cannot_record", path=path, reason=exc.reason) from None
        _active[key] = recorder
    session.add_sink(recorder)
    return recorder


def _key(file: Path) -> Path:
    # the folder resolved, the name not: a link at the name must not stand for its target
    return file.parent.resolve() / file.name


def _identity(stream: IO[str]) -> tuple[int, int]:
    found = os.fstat(stream.fileno())
    return found.st_dev, found.st_ino


def close_recordings() -> None:
    """Close every open recorder (also run at exit; each round is already flushed)."""
    with _active_lock:
        for recorder in _active.values():
            recorder.close()


atexit.register(close_recordings)


def recording_header(info: BackendInfo, spec: RunSpec) -> Masked:
    """The header line for a run: versions, backend, settings, models, prompt — no secrets.

    RunSpec holds no key values (only the *name* of the variable), URLs lose their user
    info and query, and every registered secret (boundary/secrets.py) and, as a last guard, the
    key and any value of a secret-looking environment variable found anywhere in the header is
    replaced by "***": masked once, here (`jsonio.masked`), for the file and the Markdown report
    alike; `dumps` writes it as it is unless a secret was registered since.
    """
    spec_fields = spec.header_fields()
    # what ran, where the spec leaves it to the backend (the preset's γ and T, the model a server names)
    settings = {**spec_fields["settings"], "preset": info.preset, "gamma": info.gamma,
                "temperature": info.temperature, "seed": info.seed}
    if "url" in settings:  # a server's, without its user info and query
        settings["url"] = public_url(settings["url"])
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
            "prompt_format": None if info.prompt_format is None else info.prompt_format.to_dict(),
            "prompt_tokens": info.prompt_tokens,
        },
        settings=settings,
        models={"model": info.model, "draft": info.draft, **spec_fields["models"]},
        prompt=spec_fields["prompt"],
    )
    return masked(header, also=_unregistered_secrets(spec))


def _unregistered_secrets(spec: RunSpec) -> set[str]:
    # the header's last guard, beside every registered secret: the key itself, and the value of any
    # secret-looking environment variable (not registered: masking those everywhere would garble text)
    names = {name for name in os.environ if secret_name(name)}
    names.add(spec.api_key_env or DEFAULT_KEY_ENV)
    from_env = {value for name in names if len(value := os.environ.get(name, "")) >= 8}
    return from_env | ({spec.api_key.value} if spec.api_key else set())
