"""An operating-system error's reason in the user's language.

`OSError.strerror` is the C library's English ("No such file or directory") whatever language
the screen speaks; the errors users meet with files, folders and sockets are named here by
errno and rendered from the catalog (texts/oserr.*.toml). Any other errno is quoted as the
system wrote it.
"""

from __future__ import annotations

import errno

from specview.boundary.safe_files import Refused
from specview.texts.catalog import Phrase

OS_REASONS = {
    errno.ENOENT: "oserr.enoent",
    errno.EACCES: "oserr.eacces",
    errno.EPERM: "oserr.eperm",
    errno.EISDIR: "oserr.eisdir",
    errno.ENOTDIR: "oserr.enotdir",
    errno.EEXIST: "oserr.eexist",
    errno.ELOOP: "oserr.eloop",
    errno.ENOSPC: "oserr.enospc",
    errno.EROFS: "oserr.erofs",
    errno.ENAMETOOLONG: "oserr.enametoolong",
    errno.EMFILE: "oserr.emfile",
    errno.ENXIO: "oserr.enxio",
    errno.ECONNREFUSED: "oserr.econnrefused",
    errno.ETIMEDOUT: "oserr.etimedout",
    errno.EADDRINUSE: "oserr.eaddrinuse",
}


def os_reason(exc: OSError) -> Phrase | str:
    """What went wrong, for an error's `reason` field: a Phrase for the common errnos, else the
    system's own words (or the exception's name when it has none). A name specview itself
    refused (boundary/safe_files.py: a link, a FIFO) says what it is."""
    if isinstance(exc, Refused):
        return Phrase(f"oserr.refused.{exc.form}", what=Phrase(f"oserr.kind.{exc.what}"))
    key = OS_REASONS.get(exc.errno) if exc.errno is not None else None
    if key is not None:
        return Phrase(key)
    return exc.strerror or str(exc) or type(exc).__name__
