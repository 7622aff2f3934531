"""What a name on disk is, found without opening it: `specview info` describes every path it names.

Only `lstat`, `stat` and `readlink` are used, never `open`: a FIFO at a name would block a read until
a writer came, and a device could do anything. A link is described, and its target with it; a link
whose target is gone is a dangling link. Nothing here writes (boundary/safe_files.py is what writes,
never through a link).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from specview.boundary.safe_files import kind_of

MISSING = "missing"  # no such name
FILE = "file"  # a regular file (kind_of's other words: folder, fifo, device, socket, irregular)
UNREADABLE = "unreadable"  # lstat itself failed (a folder on the way that cannot be searched)


@dataclass(frozen=True, slots=True)
class PathKind:
    """What `path` is: `kind` (MISSING, FILE, UNREADABLE or a safe_files.kind_of word), the size of a
    regular file, and for a link its target as written (`link`) and whether that target is gone."""

    kind: str
    size: int | None = None
    link: str | None = None
    dangling: bool = False
    error: int | None = None  # errno of a failed lstat (UNREADABLE)

    @property
    def is_folder(self) -> bool:
        return self.kind == "folder"


def _of_mode(mode: int, size: int) -> tuple[str, int | None]:
    what = kind_of(mode)
    return (FILE, size) if what is None else (what, None)


def path_kind(path: str | os.PathLike[str]) -> PathKind:
    """What `path` is, never opening it (see the module docstring)."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return PathKind(MISSING)
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:  # a file where a folder on the way should be: the name is not there
            return PathKind(MISSING)
        return PathKind(UNREADABLE, error=exc.errno)
    if not stat.S_ISLNK(found.st_mode):
        kind, size = _of_mode(found.st_mode, found.st_size)
        return PathKind(kind, size)
    try:
        target = os.readlink(path)
    except OSError:
        target = ""
    try:
        followed = os.stat(path)
    except OSError:
        return PathKind("link", link=target, dangling=True)
    kind, size = _of_mode(followed.st_mode, followed.st_size)
    return PathKind(kind, size, link=target)


def toml_files_in(folder: Path, limit: int = 1000) -> int | None:
    """How many `*.toml` names a folder holds (None when it is not a folder that can be listed)."""
    if not path_kind(folder).is_folder:
        return None
    try:
        return sum(1 for _ in zip(range(limit), folder.glob("*.toml"), strict=False))
    except OSError:
        return None
