"""Run a flat-out, CPU-bound backend in a child process, so it does not share the UI's GIL.

A simulator at full speed spends all its time in Python. On a thread it takes the GIL from
the screen that draws it; in a child process it runs on another core and the UI only pays
for unpickling what it draws. Rounds travel in batches through a pipe, whose fixed buffer
is the back-pressure: the child blocks when the UI falls behind. The rounds are the same
as on a thread (the backend is pickled with its seed), so pause, step and restart behave
exactly as before.
"""

from __future__ import annotations

import contextlib
import copyreg
import io
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, Any

from specview.boundary.text import sanitize
from specview.kernel.backend import Backend, BackendInfo
from specview.kernel.errors import BackendError, SpecviewError, describe_error
from specview.kernel.event_build import round_event, token_event
from specview.kernel.events import Round, StreamItem, TokenEvent
from specview.texts.catalog import Phrase

BATCH_ROUNDS = 64  # rounds per message
BATCH_SECONDS = 0.02  # or whatever was produced in this long
POLL_SECONDS = 0.1


def offload(backend: Backend) -> Backend:
    """`backend` in a child process when its info says it is CPU-bound, else itself.

    POSIX only (the pipe is polled like a socket); elsewhere it stays on its thread.
    """
    if os.name == "posix" and backend.info.cpu_bound:
        return ChildProcessBackend(backend)
    return backend


class ChildProcessBackend:
    """Wraps a picklable backend; each `rounds()` call starts a fresh child from its state.

    The child is `python -m specview.backends.process`, not multiprocessing: spawning through
    multiprocessing re-imports the parent's main script, which need not be guarded.
    """

    def __init__(self, inner: Backend) -> None:
        self.inner = inner

    @property
    def info(self) -> BackendInfo:
        return self.inner.info

    def close(self) -> None:
        self.inner.close()

    def rounds(self, stop: threading.Event) -> Iterator[StreamItem]:
        package_root = str(Path(__file__).resolve().parents[2])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
        with tempfile.TemporaryFile() as errors:  # a file, not a pipe: a chatty child can never block on it
            child = subprocess.Popen(
                [sys.executable, "-m", "specview.backends.process"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, env=env,
                start_new_session=True,  # Ctrl-C in the terminal is the UI's; it stops the child
            )
            yield from _receive(child, self.inner, errors, stop)


def _receive(
    child: subprocess.Popen[bytes], backend: Backend, errors: IO[bytes], stop: threading.Event
) -> Iterator[StreamItem]:
    """Hand the child its backend, then yield what it sends until the end, an error or `stop`."""
    assert child.stdin is not None and child.stdout is not None
    receive = Connection(os.dup(child.stdout.fileno()), writable=False)
    child.stdout.close()
    try:
        with child.stdin:
            child.stdin.write(pickle.dumps(backend, protocol=pickle.HIGHEST_PROTOCOL))
        while not stop.is_set():
            if not receive.poll(POLL_SECONDS):
                continue
            try:
                kind, payload = decode(receive.recv_bytes())
            except (EOFError, OSError):  # OSError: it ended in the middle of a message (killed while writing)
                raise _ended(child, errors, ("backenderr.process.ended", "backenderr.process.ended_said")) from None
            if kind == "error":
                raise child_error(payload)
            if kind == "end":
                return
            yield from payload
    except BrokenPipeError:
        raise _ended(child, errors, ("backenderr.process.not_started", "backenderr.process.not_started_said")) from None
    finally:
        receive.close()  # a child blocked on a full pipe gets BrokenPipeError and leaves
        try:
            child.wait(1.0)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _ended(child: subprocess.Popen[bytes], errors: IO[bytes], keys: tuple[str, str]) -> BackendError:
    """Why the child is gone (`keys`: the text, and the text with what it said): its exit code and
    the last line it wrote to stderr, if any."""
    try:
        code: int | Phrase = child.wait(2.0)
    except subprocess.TimeoutExpired:
        code = Phrase("backenderr.process.still_running")
    errors.seek(0)
    lines = errors.read().decode(errors="replace").strip().splitlines()
    if lines:
        return BackendError(keys[1], code=code, said=sanitize(lines[-1], 200, one_line=True))
    return BackendError(keys[0], code=code)


def wired(value: object) -> object:
    """An error's words as plain data for the pipe: its catalog id and fields (a Phrase or error
    field nested the same way, numbers kept for their formats, anything else as its text), so the
    parent renders it in the user's language; an error that is no SpecviewError travels as text."""
    if isinstance(value, SpecviewError):
        value = value.phrase
    if isinstance(value, Phrase):
        return {"key": value.key, "fields": {name: wired(field) for name, field in value.fields.items()}}
    if isinstance(value, BaseException):
        return describe_error(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    return str(value)


def child_error(payload: object) -> BackendError:
    """The error a child sent (`wired`), to raise here with its own catalog id."""
    said = unwired(payload)
    if isinstance(said, Phrase):
        return BackendError(said.key, **said.fields)
    return BackendError("backenderr.as_is", error=said)


def unwired(value: object) -> object:
    """The Phrase `wired` sent (anything else as its text)."""
    if isinstance(value, dict) and isinstance(value.get("key"), str) and isinstance(value.get("fields"), dict):
        return Phrase(value["key"], **{str(name): unwired(field) for name, field in value["fields"].items()})
    if value is None or isinstance(value, bool | int | float):
        return value
    return str(value)


def _produce(backend: Backend, conn: Connection) -> None:
    """The child: iterate the backend and send its rounds in batches until the reader leaves."""
    stop = threading.Event()
    try:
        send_batched(backend.rounds(stop), lambda kind, payload: _send(conn, kind, payload))
    except (BrokenPipeError, ConnectionResetError):
        return  # the UI went away first
    except Exception as exc:  # noqa: BLE001 - every failure reaches the user as a message
        with contextlib.suppress(OSError):
            _send(conn, "error", wired(exc))
    finally:
        stop.set()
        backend.close()
        conn.close()


def send_batched(items: Iterable[StreamItem], send: Callable[[str, object], None]) -> None:
    """Send what a backend yields as ("rounds", [...]) batches (BATCH_ROUNDS, or what BATCH_SECONDS
    made), then ("end", None)."""
    batch: list[Any] = []
    started = time.monotonic()
    for item in items:
        batch.append(item)
        if len(batch) >= BATCH_ROUNDS or time.monotonic() - started >= BATCH_SECONDS:
            send("rounds", batch)
            batch, started = [], time.monotonic()
    if batch:
        send("rounds", batch)
    send("end", None)


def _send(conn: Connection, kind: str, payload: object) -> None:
    conn.send_bytes(encode(kind, payload))


def _token_by_builder(t: TokenEvent) -> tuple[object, tuple[object, ...]]:
    return (token_event, (t.token_id, t.text, t.status, t.position, t.p, t.q, t.inferred, t.u, t.residual,
                          t.residual_p, t.q_rank))


def _round_by_builder(r: Round) -> tuple[object, tuple[object, ...]]:
    return (round_event, (r.index, r.drafted, r.tokens, r.t_draft_s, r.t_verify_s, r.t_wall, r.discarded, r.drafter,
                          r.lost, r.q_top, r.lost_from))


# Tokens and rounds cross the pipe as their fields, rebuilt by kernel/event_build.py: the UI
# thread decodes every token the children make, and the builders take half the frozen __init__'s time.
# The fields are written out above (in TOKEN_FIELDS' and ROUND_FIELDS' order): an attrgetter over
# those names takes twice as long a token on the child (tests/unit/kernel/test_event_build.py round-trips
# a token and a round with every field set). Elsewhere they pickle as dataclasses do (their slots).
_WIRE: dict[type, Any] = {**copyreg.dispatch_table, TokenEvent: _token_by_builder, Round: _round_by_builder}


def encode(kind: str, payload: object) -> bytes:
    """One message for the pipe (`decode` reads it)."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _WIRE
    pickler.dump((kind, payload))
    return out.getvalue()


def decode(message: bytes) -> tuple[str, Any]:
    """(kind, payload) of a message `encode` made (the child is ours: its pickles are trusted)."""
    kind, payload = pickle.loads(message)
    return kind, payload


def _child_main() -> None:
    conn = Connection(os.dup(1), readable=False)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # only our messages may reach the pipe
    backend = pickle.load(sys.stdin.buffer)
    _produce(backend, conn)


if __name__ == "__main__":
    _child_main()
