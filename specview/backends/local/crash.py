"""What to tell a user whose engine process died: what died, of which signal, the lines that say
where, the likely cause and what to try — one line, in their language (texts/backend.*.toml).

The evidence is the child's exit status and the end of its stderr, where it wrote llama.cpp's log,
ggml's own abort message (`GGML_ASSERT`) and, on a native crash, Python's faulthandler stack.
"""

from __future__ import annotations

import signal
from collections.abc import Sequence

from specview.boundary.text import sanitize
from specview.kernel.errors import BackendError
from specview.texts.catalog import Phrase

MAX_TAIL_BYTES = 64 * 1024  # the end of the child's stderr that is read
SAID_CHARS = 240
# signals whose cause each has its own words (texts: backenderr.engine.cause.<name>)
NATIVE = ("SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE")
# what Python's faulthandler writes on a native crash: the signal is said already, the stack is ours
FAULTHANDLER = ("Fatal Python error", "Current thread", "Thread 0x", "File ", "<no Python frame>",
                "Extension modules", "Stack (most recent")
EXIT_CODE = 3  # a headless command whose engine died (not 139, not a traceback)


class EngineCrashed(BackendError):
    """The engine's process died under a run: the run ends, specview goes on (a headless command
    exits with `exit_code`)."""

    exit_code = EXIT_CODE


class EngineUnresponsive(EngineCrashed):
    """The engine's process stopped answering (stopped, or stuck past the deadline) and was ended."""


def signal_name(returncode: int) -> str | None:
    """`SIGSEGV` for an exit status of -11; None for a normal exit."""
    if returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def crash_error(returncode: int, tail: Sequence[str]) -> EngineCrashed:
    """The error for an engine that ended with `returncode` while it was needed, from the end of
    its stderr (`tail`, oldest first: the load's log, where llama.cpp names an AMX buffer, included)."""
    name = signal_name(returncode)
    said = _telling_line(tail)
    if name is None:
        cause, hint = Phrase("backenderr.engine.cause.exit", code=returncode), Phrase("backenderr.engine.hint.log")
    else:
        cause, hint = _cause(name, tail)
    fields: dict[str, object] = {"signal": name or str(returncode), "cause": cause, "hint": hint}
    if said:
        return EngineCrashed("backenderr.engine.crashed_said", said=said, **fields)
    return EngineCrashed("backenderr.engine.crashed", **fields)


def _cause(name: str, tail: Sequence[str]) -> tuple[Phrase, Phrase]:
    amx = any("AMX" in line for line in tail)
    if name in ("SIGSEGV", "SIGBUS", "SIGILL") and amx:
        return Phrase("backenderr.engine.cause.amx"), Phrase("backenderr.engine.hint.no_repack")
    if name == "SIGILL":
        return Phrase("backenderr.engine.cause.sigill"), Phrase("backenderr.engine.hint.rebuild")
    if name == "SIGKILL":
        return Phrase("backenderr.engine.cause.killed"), Phrase("backenderr.engine.hint.memory")
    if name == "SIGABRT":
        return Phrase("backenderr.engine.cause.abort"), Phrase("backenderr.engine.hint.model")
    if name in NATIVE:
        return Phrase("backenderr.engine.cause.native"), Phrase("backenderr.engine.hint.log")
    return Phrase("backenderr.engine.cause.signal"), Phrase("backenderr.engine.hint.log")


def _telling_line(tail: Sequence[str]) -> str | None:
    """The line that says most: ggml's assertion, else llama.cpp's last error, else its last line."""
    lines = [line.strip() for line in tail[-40:] if line.strip() and not line.strip().startswith(FAULTHANDLER)]
    for marks in (("GGML_ASSERT", "GGML_ABORT", "terminate called"), ("error:",)):
        found = [line for line in lines if any(mark in line for mark in marks)]
        if found:
            return sanitize(found[-1], SAID_CHARS, one_line=True)
    logged = [line for line in lines if line.startswith(("info:", "warn:"))]
    return sanitize(logged[-1], SAID_CHARS, one_line=True) if logged else None


def read_tail(data: bytes) -> list[str]:
    """The lines of what the child wrote (its end only: `data` is at most MAX_TAIL_BYTES)."""
    return data[-MAX_TAIL_BYTES:].decode("utf-8", "replace").splitlines()
