"""The engine's own process: llama.cpp runs here, so a crash in it ends this process, not specview.

`python -m specview.backends.local.engine_host`, started by engine_process.py. Messages cross two
pipes in backends/process.py's encoding. The parent asks:

    ("open", RunSpec)          load the models (answer: ("ready", (BackendInfo, prompt tokens)))
    ("run", None)              produce rounds: ("rounds", [...]) batches, then ("end", None)
    ("stop", None)             end the run in progress after its current round
    ("call", ("mod:fn", args)) call a function of specview here (answer: ("result", value))
    ("close", None)            free the models and leave (so does the end of the parent's pipe)

Any failure the user can act on comes back as ("error", its catalog id and fields). A thread says
("alive", None) every HEARTBEAT_S, so the parent tells a stopped or stuck engine from a slow round.
llama.cpp's log lines are also written to stderr, which the parent keeps in a file: after a crash
they say what the engine was doing.
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib
import os
import sys
import threading
from multiprocessing.connection import Connection
from typing import Any

from specview.backends.process import decode, encode, send_batched, wired
from specview.kernel.backend import Backend

ENGINE_CHILD_ENV = "SPECVIEW_ENGINE_CHILD"  # set in the engine's process: its backends run in process
HEARTBEAT_S = 1.0


def call_named(target: str, *args: Any) -> Any:
    """`module:function(*args)`, the function imported by name."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)(*args)


class Host:
    """The child's state: one backend at most, one run at a time."""

    def __init__(self, out: Connection) -> None:
        self.out = out
        self._send_lock = threading.Lock()
        self.backend: Backend | None = None
        self.stop = threading.Event()
        self.runner: threading.Thread | None = None
        self.closed = threading.Event()

    def send(self, kind: str, payload: object) -> None:
        with self._send_lock:
            self.out.send_bytes(encode(kind, payload))

    def heartbeat(self) -> None:
        """Say "alive" every HEARTBEAT_S; leave at once when specview is gone, however it went (a second
        Ctrl-C, a kill), even while llama.cpp is inside a decode (it lets go of the GIL there)."""
        parent = os.getppid()
        while not self.closed.wait(HEARTBEAT_S):
            try:
                self.send("alive", None)
            except OSError:
                os._exit(0)
            if os.getppid() != parent:
                os._exit(0)

    def handle(self, kind: str, payload: Any) -> bool:
        """Carry out one request; False when the host should leave."""
        if kind == "open":
            from specview.backends.factory import make_backend

            try:
                self.backend = make_backend(payload)
            except Exception as exc:  # noqa: BLE001 - every failure reaches the user as a message
                self.send("error", wired(exc))
                return True
            self.send("ready", (self.backend.info, getattr(self.backend, "prompt_tokens", None)))
        elif kind == "run" and self.backend is not None:
            self._join()
            self.stop = threading.Event()
            self.runner = threading.Thread(target=self._produce, args=(self.backend, self.stop), daemon=True)
            self.runner.start()
        elif kind == "stop":
            self.stop.set()
        elif kind == "call":
            self._call(*payload)
        elif kind == "close":
            return False
        return True

    def _call(self, target: str, args: tuple[Any, ...]) -> None:
        try:
            value = call_named(target, *args)
        except Exception as exc:  # noqa: BLE001 - every failure reaches the user as a message
            self.send("error", wired(exc))
            return
        self.send("result", value)

    def _produce(self, backend: Backend, stop: threading.Event) -> None:
        try:
            send_batched(backend.rounds(stop), self.send)
        except OSError:
            return  # the parent went away
        except Exception as exc:  # noqa: BLE001 - every failure reaches the user as a message
            with contextlib.suppress(OSError):
                self.send("error", wired(exc))

    def _join(self) -> None:
        if self.runner is not None:
            self.stop.set()
            self.runner.join()
            self.runner = None

    def shut(self) -> None:
        self._join()
        self.closed.set()
        if self.backend is not None:
            self.backend.close()


def _load_llama_first() -> None:
    """llama.cpp's libraries before numpy's: with numpy loaded first, a CUDA build of llama.cpp
    crashed in its model load (seen on an H200 machine: numpy 2.5, CUDA 13; not on CPU builds)."""
    from specview.backends.local.lib import llama_lib
    from specview.kernel.errors import BackendError

    with contextlib.suppress(BackendError):  # not installed: the open request says so, in words
        llama_lib()


def main() -> None:
    os.environ[ENGINE_CHILD_ENV] = "1"  # the factory builds this process's backends in process
    _load_llama_first()
    faulthandler.enable(sys.stderr)  # a native crash leaves the Python stack in the parent's file
    from specview.backends.local.log import LOG

    LOG.echo = sys.stderr
    out = Connection(os.dup(1), readable=False)
    inbox = Connection(os.dup(0), writable=False)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # only our messages may reach the pipe (llama.cpp prints to stdout at times)
    host = Host(out)
    threading.Thread(target=host.heartbeat, name="specview-engine-heartbeat", daemon=True).start()
    try:
        while True:
            try:
                kind, payload = decode(inbox.recv_bytes())
            except (EOFError, OSError):
                break  # the parent is gone: leave
            if not host.handle(kind, payload):
                break
    finally:
        host.shut()
        with contextlib.suppress(OSError):
            host.send("closed", None)


if __name__ == "__main__":
    main()
