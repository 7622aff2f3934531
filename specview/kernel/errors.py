"""One error type at the edges: every failure a user can act on is a SpecviewError.

Parsers of anything from outside (recordings, server streams, /metrics, presets, config,
command-line values) raise one of these with a message that names where (file and line,
or server and field) and what to do. The CLI prints the message on one line and exits 2;
the UI shows it in a notification and a "stopped: reason" status. Anything else that
escapes is a bug: the CLI logs its traceback and exits 1.
"""

from __future__ import annotations

import os


class SpecviewError(Exception):
    """A failure the user can act on; the message is shown as is (no traceback)."""


class BackendError(SpecviewError):
    """A backend that cannot start or stopped: server down, bad model file, bad setting."""


class PresetError(SpecviewError):
    """A preset file or id that cannot be used; the message names file, key and reason."""


class ConfigError(SpecviewError):
    """A config value that cannot be used; the message names the config file and key."""


class CliError(SpecviewError):
    """A command-line value that cannot be used."""


class RecordingError(SpecviewError):
    """A recording that cannot be read (further); the message names the file and the line."""

    def __init__(self, path: str | os.PathLike[str], line: int | None, reason: str) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        where = self.path if line is None else f"{self.path} line {line}"
        super().__init__(f"{where}: {reason}")


def describe_error(exc: BaseException) -> str:
    """What a failure looks like to a user: a SpecviewError's own message, anything else
    (a bug or a library's error) with its type so it can be reported."""
    if isinstance(exc, SpecviewError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
