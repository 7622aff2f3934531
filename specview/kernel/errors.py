"""One error type at the edges: every failure a user can act on is a SpecviewError.

Parsers of anything from outside (recordings, server streams, /metrics, presets, config,
command-line values) raise one of these with a message that names where (file and line,
or server and field) and what to do. The message is a catalog id with fields
(`raise CliError("clierr.unknown_theme", theme=…, known=…)`), put into words in the user's
language where it is shown (`describe_error(exc, lang)`); `str(exc)` is the English text. A field
may be a `Phrase` or another SpecviewError: it is rendered in the same language. The CLI prints the
message on one line and exits 2; the UI shows it in a notification and a "stopped: reason" status.
Anything else that escapes is a bug: the CLI logs its traceback and exits 1.
"""

from __future__ import annotations

import os

from specview.texts.catalog import FALLBACK, Phrase


class SpecviewError(Exception):
    """A failure the user can act on; the message is shown in words, never a traceback.

    `key` is a catalog id; a text that is no id is shown as written (older raise sites; a test
    lists them).
    """

    def __init__(self, key: str, /, **fields: object) -> None:
        self.phrase = Phrase(key, **fields)
        super().__init__(key)

    def in_language(self, lang: str) -> str:
        """The message in `lang` (unknown languages: English)."""
        return self.phrase.render(lang)

    def __str__(self) -> str:
        return self.in_language(FALLBACK)

    def __reduce__(self) -> tuple[object, ...]:
        # Pickled whole (a run in a child process sends its error to the UI): Exception's own
        # pickling would call the class with `args` alone, losing the fields and failing for a
        # subclass whose __init__ takes other arguments.
        return _rebuilt, (type(self), self.phrase, self.__dict__)


def _rebuilt(cls: type[SpecviewError], phrase: Phrase, state: dict[str, object]) -> SpecviewError:
    error = cls.__new__(cls)
    Exception.__init__(error, phrase.key)
    error.__dict__.update(state)
    error.phrase = phrase
    return error


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

    def __init__(self, path: str | os.PathLike[str], line: int | None, reason: str | Phrase) -> None:
        self.path = str(path)
        self.line = line
        self.reason = reason
        if line is None:
            super().__init__("error.at_file", path=self.path, reason=reason)
        else:
            super().__init__("error.at_line", path=self.path, line=line, reason=reason)


def describe_error(exc: BaseException, lang: str = FALLBACK) -> str:
    """What a failure looks like to a user: a SpecviewError's own message in `lang`, anything
    else (a bug or a library's error) with its type so it can be reported."""
    if isinstance(exc, SpecviewError):
        return exc.in_language(lang)
    return f"{type(exc).__name__}: {exc}"
