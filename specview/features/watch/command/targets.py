"""The targets of a fleet watch: `--url` (repeatable) and `--targets FILE`.

The file holds one server URL per line; `#` starts a comment (to the end of the line: a server's
base URL has no use for a fragment) and blank lines are skipped. It is read bounded: at most
MAX_FILE_BYTES, a regular file only (a directory, a FIFO or a device is refused before it is
opened for reading, so nothing blocks), UTF-8. A line that is not a usable URL, is longer than
MAX_URL_CHARS or repeats an earlier target is one CliError naming the file and the line.
"""

from __future__ import annotations

import stat
from pathlib import Path

from specview.backends.remote.base_url import parse_base_url
from specview.boundary.safe_files import open_regular
from specview.boundary.text import shown
from specview.kernel.errors import SpecviewError
from specview.kernel.os_reason import os_reason

MAX_FILE_BYTES = 1 * 2**20
MAX_URL_CHARS = 2048
MAX_TARGETS = 1000


class TargetsError(SpecviewError):
    """A targets file (or `--url` list) that cannot be used; the message names the file and line."""


def read_targets(path: Path) -> list[str]:
    """The URLs a targets file lists, in its order."""
    where = f"--targets {shown(str(path), 200)}"
    try:
        info = path.stat()
    except FileNotFoundError:
        raise TargetsError("watcherr.targets.no_file", where=where) from None
    except OSError as exc:
        raise TargetsError("watcherr.targets.unreadable", where=where, reason=os_reason(exc)) from None
    if stat.S_ISDIR(info.st_mode):
        raise TargetsError("watcherr.targets.directory", where=where)
    if not stat.S_ISREG(info.st_mode):
        raise TargetsError("watcherr.targets.not_regular", where=where)
    if info.st_size > MAX_FILE_BYTES:
        raise TargetsError("watcherr.targets.too_big", where=where, bytes=info.st_size, mib=MAX_FILE_BYTES // 2**20)
    try:
        with open_regular(path) as handle:  # checked again when opened: the name may have changed
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise TargetsError("watcherr.targets.unreadable", where=where, reason=os_reason(exc)) from None
    if len(data) > MAX_FILE_BYTES:  # it grew after the check
        raise TargetsError("watcherr.targets.grew", where=where, mib=MAX_FILE_BYTES // 2**20)
    return parse_targets(data, where)


def parse_targets(data: bytes, where: str) -> list[str]:
    """The URLs in a targets file's bytes (`where` names it in errors)."""
    urls: list[str] = []
    first: dict[str, int] = {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise TargetsError("watcherr.targets.not_utf8", where=where, line=number) from None
        if len(line) > MAX_URL_CHARS:
            raise TargetsError("watcherr.targets.long_line", where=where, line=number, n=len(line), most=MAX_URL_CHARS)
        url = line.split("#", 1)[0].strip()
        if not url:
            continue
        if any(c.isspace() for c in url):
            raise TargetsError("watcherr.targets.words", where=where, line=number, url=shown(url))
        try:
            root = parse_base_url(url).root
        except SpecviewError as exc:
            raise TargetsError("watcherr.targets.bad_url", where=where, line=number, error=exc) from None
        if root in first:
            raise TargetsError("watcherr.targets.repeats", where=where, line=number, first=first[root],
                               root=shown(root))
        first[root] = number
        urls.append(url)
        if len(urls) > MAX_TARGETS:
            raise TargetsError("watcherr.targets.many_in_file", where=where, most=MAX_TARGETS, line=number)
    if not urls:
        raise TargetsError("watcherr.targets.empty", where=where)
    return urls


def all_targets(urls: list[str] | None, targets: Path | None) -> list[str]:
    """`--url`s then the file's URLs; the same server twice is an error."""
    chosen = list(urls or [])
    seen: dict[str, str] = {}
    for url in chosen:
        root = parse_base_url(url).root
        if root in seen:
            raise TargetsError("watcherr.targets.url_twice", root=shown(root))
        seen[root] = url
    if targets is not None:
        for url in read_targets(targets):
            root = parse_base_url(url).root
            if root in seen:
                raise TargetsError("watcherr.targets.repeats_url", targets=shown(str(targets), 200), root=shown(root))
            seen[root] = url
            chosen.append(url)
    if len(chosen) > MAX_TARGETS:
        raise TargetsError("watcherr.targets.many", most=MAX_TARGETS)
    return chosen
