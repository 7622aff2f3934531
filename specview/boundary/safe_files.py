"""Opening files by name safely: written never through a link, mode 0600, never over a file unasked;
read only when they are regular files.

A shared folder or an unpacked tarball can hold `run.md -> ~/.ssh/authorized_keys`, or a FIFO
where a report goes: a plain `open(name, "w")` writes through the link, or blocks. So a new file
is created with O_CREAT | O_EXCL | O_NOFOLLOW (refused when anything, a dangling link included,
has the name), and a replacement the user asked for (`--force`) is a new temporary file in the same
folder renamed over the old one: rename replaces the name, never what a link points to, and only a
regular file is ever replaced. Each name is opened relative to a descriptor of its folder, so the
folder checked is the folder written to. The crash log, which grows across runs, is opened
O_APPEND | O_NOFOLLOW. A file to read (a recording) is checked to be a regular file before it is
opened in a way that could block (a FIFO, a terminal, /dev/zero).
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

MODE = 0o600
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


# What a file that is not a regular one is (`Refused.what`), and the three ways a refusal is put
# (`Refused.form`). These are the English words; kernel/os_reason.py renders both in the user's
# language from the catalog (texts/oserr.*.toml: oserr.kind.<what>, oserr.refused.<form>).
KINDS = {"link": "a symbolic link", "folder": "a folder", "fifo": "a FIFO", "device": "a device",
         "socket": "a socket", "irregular": "not a regular file"}
FORMS = {"is": "it is {what}", "not_regular": "it is {what}, not a regular file",
         "replace_only": "it is {what}; specview replaces only a regular file"}


class Refused(OSError):
    """A name specview will not write to or read: a link, a folder, a device; `what` says which
    (a KINDS key) and `strerror` says it in English."""

    def __init__(self, path: str | os.PathLike[str], form: str, what: str) -> None:
        super().__init__(errno.EPERM, FORMS[form].format(what=KINDS[what]), str(path))
        self.form = form
        self.what = what

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def kind_of(mode: int) -> str | None:
    """What a file that is not a regular one is, as a KINDS key (None for a regular file)."""
    kinds = ((stat.S_ISLNK, "link"), (stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "fifo"),
             (stat.S_ISCHR, "device"), (stat.S_ISBLK, "device"), (stat.S_ISSOCK, "socket"))
    for test, what in kinds:
        if test(mode):
            return what
    return None if stat.S_ISREG(mode) else "irregular"


@contextmanager
def _folder(path: Path) -> Iterator[tuple[int, str]]:
    """A descriptor of `path`'s folder and the name in it."""
    folder = path.parent if str(path.parent) else Path(".")
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield fd, path.name
    finally:
        os.close(fd)


def _text(fd: int) -> IO[str]:
    # a lone surrogate becomes a JSON-style escape instead of an error in the middle of a file
    return os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace")


def _check_replaceable(path: Path, folder: int, name: str) -> bool:
    """Whether something has the name (a regular file); Refused for anything else."""
    try:
        found = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    what = kind_of(found.st_mode)
    if what is not None:
        raise Refused(path, "replace_only", what)
    return True


def check_new(path: str | os.PathLike[str], *, replace: bool = False) -> None:
    """Raise now what `open_new` / `write_new` would raise for the name (FileExistsError, Refused), so
    that a command can refuse before its work; the write checks again."""
    file = Path(path)
    with _folder(file) as (folder, name):
        if _check_replaceable(file, folder, name) and not replace:
            raise FileExistsError(errno.EEXIST, "it exists", str(path))


def _create(path: Path, folder: int, name: str) -> int:
    try:
        return os.open(name, _NEW, MODE, dir_fd=folder)
    except FileExistsError:
        _check_replaceable(path, folder, name)  # a link or a FIFO says so; a file is "exists"
        raise FileExistsError(errno.EEXIST, "it exists", str(path)) from None


def _temporary(folder: int) -> tuple[int, str]:
    name = f".specview-{secrets.token_hex(6)}.tmp"  # short: the final name may be near NAME_MAX
    return os.open(name, _NEW, MODE, dir_fd=folder), name


def open_new(path: str | os.PathLike[str], *, replace: bool = False) -> IO[str]:
    """A new, empty file at `path` for writing text (mode 0600).

    FileExistsError when something has the name, unless `replace`: then a regular file there is
    replaced at once (the new file is renamed over it before anything is written, so a stream such
    as a recording is visible as it grows); Refused for a link, a folder or a device."""
    file = Path(path)
    with _folder(file) as (folder, name):
        if not (replace and _check_replaceable(file, folder, name)):
            return _text(_create(file, folder, name))
        fd, temporary = _temporary(folder)
        try:
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except OSError:
            os.close(fd)
            os.unlink(temporary, dir_fd=folder)
            raise
        return _text(fd)


def write_new(path: str | os.PathLike[str], text: str, *, replace: bool = False) -> None:
    """Write `text` to a new file at `path` (see `open_new`); a replacement is renamed into place
    only once it is whole, so a failed write leaves the old file as it was."""
    file = Path(path)
    with _folder(file) as (folder, name):
        if not (replace and _check_replaceable(file, folder, name)):
            with _text(_create(file, folder, name)) as out:
                out.write(text)
            return
        fd, temporary = _temporary(folder)
        try:
            with _text(fd) as out:
                out.write(text)
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            os.unlink(temporary, dir_fd=folder)
            raise


def open_append(path: str | os.PathLike[str]) -> IO[str]:
    """`path` opened to append text (created 0600 if missing); Refused unless it is a regular file.

    O_NONBLOCK keeps a FIFO at the name from blocking the open; a file left readable by others
    (an older specview made it 0644) is narrowed to 0600."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, MODE)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # a link; a FIFO nobody reads
            raise Refused(path, "is", "link" if exc.errno == errno.ELOOP else "fifo") from None
        raise
    try:
        found = os.fstat(fd)
        what = kind_of(found.st_mode)
        if what is not None:
            raise Refused(path, "is", what)
        if found.st_mode & 0o077 and found.st_uid == os.geteuid():
            os.fchmod(fd, MODE)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return _text(fd)


def open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """`path` opened for reading, refused (Refused) before any read unless it is a regular file.

    The name is checked first, so a FIFO or a device is never opened; the descriptor is checked
    again (opened with O_NONBLOCK, which cannot wait), in case the name changed in between."""
    what = kind_of(os.stat(path).st_mode)
    if what is not None:
        raise Refused(path, "not_regular", what)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        what = kind_of(os.fstat(fd).st_mode)
        if what is not None:
            raise Refused(path, "not_regular", what)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")

