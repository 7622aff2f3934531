"""The local engine in a child process: llama.cpp never runs in specview's own process.

A native crash in llama.cpp (a segfault in its AMX kernels, an assertion on a malformed GGUF, the
kernel killing it for memory) ends the child; the run then ends with one line that says what died
and what to try (crash.py), the view keeps what the run produced, and a recording gets its end
record (the Session tells its sinks why the run ended). The child is engine_host.py; rounds come
through a pipe in batches, as a flat-out simulator's do (backends/process.py).

`EngineProcess` is a Backend: built from a RunSpec, it loads the models before any UI starts (bad
input fails there), and each `rounds()` call runs the loaded models again (restart). `engine_call`
runs one function in a child of its own (`diff`, Learn's measurements, a token's p and q).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, Any

from specview.backends.local.crash import MAX_TAIL_BYTES, EngineUnresponsive, crash_error, read_tail
from specview.backends.local.engine_host import ENGINE_CHILD_ENV, call_named
from specview.backends.local.run_options import llama_options
from specview.backends.process import child_error, decode, encode
from specview.kernel.backend import BackendInfo
from specview.kernel.errors import BackendError
from specview.kernel.events import StreamItem
from specview.kernel.runspec import RunSpec

DEADLINE_ENV = "SPECVIEW_ENGINE_DEADLINE"
DEFAULT_DEADLINE_S = 30.0  # silence (no round, no heartbeat) after which the engine is ended
POLL_S = 0.1
CLOSE_WAIT_S = 3.0


def deadline_s() -> float:
    """Seconds of silence before the engine counts as stuck (SPECVIEW_ENGINE_DEADLINE, 2–3600)."""
    try:
        return min(3600.0, max(2.0, float(os.environ.get(DEADLINE_ENV, DEFAULT_DEADLINE_S))))
    except ValueError:
        return DEFAULT_DEADLINE_S


def check_installed(spec: RunSpec) -> None:
    """What a local run needs before any process starts: llama-cpp-python (and the demo's model
    package for `--demo`), each missing one a BackendError with its install command."""
    from importlib.util import find_spec

    from specview.backends.local.lib import LLAMA_INSTALL

    if find_spec("llama_cpp") is None:
        raise BackendError("backenderr.lib.missing", reason="No module named 'llama_cpp'", install=LLAMA_INSTALL)
    if llama_options(spec).demo:
        from specview.backends.local.demo import demo_model_path

        demo_model_path()


class EngineChild:
    """One engine process and its two pipes; every wait on it has a deadline."""

    def __init__(self) -> None:
        package_root = str(Path(__file__).resolve().parents[3])
        env = {**os.environ,
               "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
        # a file, not a pipe: the child never blocks on it (closed by close())
        self.errors: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "specview.backends.local.engine_host"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, env=env,
            start_new_session=True,  # Ctrl-C in the terminal is the UI's: it ends the child through close()
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._to = Connection(os.dup(self.process.stdin.fileno()), readable=False)
        self._from = Connection(os.dup(self.process.stdout.fileno()), writable=False)
        self.process.stdin.close()
        self.process.stdout.close()
        self._lock = threading.Lock()
        self.deadline = deadline_s()

    def send(self, kind: str, payload: object = None) -> None:
        """A request; a child already gone is found out by the next `receive`."""
        with self._lock, contextlib.suppress(OSError):
            self._to.send_bytes(encode(kind, payload))

    def receive(self, stop: threading.Event | None = None) -> tuple[str, Any] | None:
        """The next message other than a heartbeat (None when `stop` was set first). Raises the
        crash or the deadline as a BackendError, and an error the child sent as one."""
        silent_since = time.monotonic()
        while stop is None or not stop.is_set():
            try:
                ready = self._from.poll(POLL_S)
            except OSError:
                ready = True
            if not ready:
                if time.monotonic() - silent_since > self.deadline:
                    raise self._unresponsive()
                continue
            try:
                kind, payload = decode(self._from.recv_bytes())
            except (EOFError, OSError):  # OSError: it ended in the middle of a message
                raise self._died() from None
            if kind == "alive":
                silent_since = time.monotonic()
                continue
            if kind == "error":
                raise child_error(payload)
            return kind, payload
        return None

    def tail(self) -> list[str]:
        """The end of what the child wrote to stderr."""
        with contextlib.suppress(OSError, ValueError):
            size = self.errors.seek(0, os.SEEK_END)
            self.errors.seek(max(0, size - MAX_TAIL_BYTES))
            return read_tail(self.errors.read())
        return []

    def _died(self) -> BackendError:
        try:
            code = self.process.wait(CLOSE_WAIT_S)
        except subprocess.TimeoutExpired:  # the pipe broke but the process lingers: end it
            self.kill()
            code = self.process.returncode
        return crash_error(code, self.tail())

    def _unresponsive(self) -> BackendError:
        self.kill()
        return EngineUnresponsive("backenderr.engine.unresponsive", seconds=f"{self.deadline:g}")

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(CLOSE_WAIT_S)

    def close(self) -> None:
        """Ask the child to free its models and leave; end it if it does not in time."""
        self.send("close")
        with self._lock:
            self._to.close()
        try:
            self.process.wait(CLOSE_WAIT_S)
        except subprocess.TimeoutExpired:
            self.kill()
        self._from.close()
        self.errors.close()


class EngineProcess:
    """A local llama.cpp run whose models live in a child process (a Backend, and Interruptible)."""

    def __init__(self, spec: RunSpec) -> None:
        check_installed(spec)
        self.child = EngineChild()
        try:
            self.child.send("open", spec)
            answer = self.child.receive()
            assert answer is not None and answer[0] == "ready", answer
        except BaseException:
            self.child.kill()
            self.child.close()
            raise
        self._info: BackendInfo = answer[1][0]
        self.prompt_tokens: list[int] | None = answer[1][1]
        self._closed = False
        self._running = threading.Event()

    @property
    def info(self) -> BackendInfo:
        return self._info

    def rounds(self, stop: threading.Event) -> Iterator[StreamItem]:
        """The loaded models' rounds, from the start (a restart runs them again)."""
        if self._closed:
            return
        self._running.set()
        self.child.send("run")
        try:
            while True:
                message = self.child.receive(stop)
                if message is None:  # stopped here: the child ends its run after its round
                    self.child.send("stop")
                    self._drain()
                    return
                kind, payload = message
                if kind == "end":
                    return
                if kind == "rounds":
                    yield from payload
        finally:
            self._running.clear()

    def _drain(self) -> None:
        """Read the stopped run's last batches and its end, so the next run starts clean."""
        with contextlib.suppress(BackendError):
            while (message := self.child.receive()) is not None and message[0] != "end":
                pass

    def interrupt(self) -> None:
        """Stop the run in progress now (the Session's stop)."""
        if self._running.is_set():
            self.child.send("stop")

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.child.close()


def engine_call(target: str, *args: Any) -> Any:
    """`module:function(*args)` called in an engine process of its own (arguments and result
    pickled); a crash there is an EngineCrashed here. For work that loads llama.cpp outside a run.
    In an engine's process already (SPECVIEW_ENGINE_CHILD), it is called here."""
    if os.environ.get(ENGINE_CHILD_ENV):
        return call_named(target, *args)
    child = EngineChild()
    try:
        child.send("call", (target, args))
        answer = child.receive()
        assert answer is not None and answer[0] == "result", answer
        return answer[1]
    finally:
        child.close()
