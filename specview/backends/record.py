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
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from specview.backends.base import BackendError, BackendInfo
from specview.backends.spec import DEFAULT_KEY_ENV, RunSpec
from specview.core.recording import Recorder, header_record

if TYPE_CHECKING:
    from specview.core.session import Session

_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
_REDACTED = "[redacted]"
_active: dict[Path, Recorder] = {}
_active_lock = threading.Lock()


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
    info and query, and as a last guard any value of a secret-looking environment variable
    found anywhere in the header is replaced by "[redacted]".
    """
    header = header_record(
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        backend={
            "name": info.backend,
            "label": info.label,
            "virtual_clock": info.virtual_clock,
            "reconciles": info.reconciles,
            "exact": dict(info.exact),
            "note": info.note,
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
            "no_spec": spec.no_spec,
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


def public_url(url: str | None) -> str | None:
    """`url` without user info, query or fragment (where tokens sometimes hide)."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port is None else f"{host}:{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _secret_values(spec: RunSpec) -> set[str]:
    names = {name for name in os.environ if any(word in name.upper() for word in _SECRET_WORDS)}
    names.add(spec.api_key_env or DEFAULT_KEY_ENV)
    values = {os.environ.get(name, "") for name in names}
    return {value for value in values if len(value) >= 8}


def _redact(value: Any, secrets: set[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, _REDACTED)
        return value
    if isinstance(value, dict):
        return {key: _redact(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact(item, secrets) for item in value]
    return value
