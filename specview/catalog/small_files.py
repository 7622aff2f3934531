"""Small files from outside (a preset, the config, a prompt suite): read only as a regular file, size
bounded before anything is parsed, every failure one error naming the file (its class the caller's)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from specview.boundary.safe_files import open_regular
from specview.kernel.errors import SpecviewError
from specview.kernel.os_reason import os_reason


def read_small(path: Path, limit: int, error: type[SpecviewError]) -> str:
    """A small text file from outside, as text: size bounded, every failure an `error` naming the file.
    Only a regular file is opened (a FIFO or a device at the name would block the read: refused instead)."""
    try:
        with open_regular(path) as file:
            raw = file.read(limit + 1)
    except OSError as exc:
        raise error("catalogerr.toml.cannot_read", path=path, reason=os_reason(exc)) from None
    if len(raw) > limit:
        raise error("catalogerr.toml.too_large", path=path, kib=limit // 1024)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise error("catalogerr.toml.not_utf8", path=path) from None


def read_toml(path: Path, limit: int, error: type[SpecviewError]) -> dict[str, Any]:
    """A small TOML file from outside (read_small), parsed; a file that is not TOML is an `error` too."""
    raw = read_small(path, limit, error)
    try:
        return tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise error("catalogerr.toml.not_toml", path=path, reason=exc) from None
    except (ValueError, RecursionError) as exc:  # a 5000-digit number, arrays nested too deeply
        raise error("catalogerr.toml.unreadable", path=path, kind=type(exc).__name__) from None
