"""`specview watch …` run as a user runs it (a subprocess of this checkout), its stdout lines read on
a thread so a test can look at the latest record while it polls, and stop it with Ctrl-C; and
clients that keep a real server busy at a chosen concurrency while a block runs."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]


class Watcher:
    """One `specview watch` process; `seen` holds every line it printed so far."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen([sys.executable, "-m", "specview", "watch", *args], cwd=ROOT, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout or ():
            self.lines.put(line)

    def drain(self) -> list[str]:
        """Every line printed so far."""
        while True:
            try:
                self.seen.append(self.lines.get_nowait())
            except queue.Empty:
                return self.seen

    def last_record(self) -> dict[str, Any]:
        """The last line, as JSON (`--json`), or {} before the first."""
        lines = self.drain()
        return dict(json.loads(lines[-1])) if lines else {}

    def close(self) -> None:
        """SIGTERM, then SIGKILL after 10 s (a no-op once it ended)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def interrupt(self, timeout: float = 30.0) -> str:
        """Ctrl-C, as a user ends it; everything it printed."""
        import signal

        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout)
        self._reader.join(timeout)  # until its stdout ends: every line read
        return "".join(self.drain())


@contextmanager
def busy_clients(url: str, body: Callable[[int, int], dict[str, Any]], n: int) -> Iterator[list[str]]:
    """`n` clients, each posting `body(client, k)` to `url` one after another until the block
    ends (the requests in flight then finish); the errors they met."""
    done = threading.Event()
    errors: list[str] = []

    def post(http: httpx.Client, payload: dict[str, Any]) -> None:
        """One request on a connection of its own (`Connection: close`: no keep-alive reuse racing the
        server's idle timeout); a connection dropped before any answer is sent once more, then counted."""
        for attempt in (1, 2):
            try:
                http.post(url, json=payload, headers={"Connection": "close"}).raise_for_status()
                return
            except httpx.RemoteProtocolError as exc:
                if attempt == 2:
                    errors.append(repr(exc))
            except httpx.HTTPError as exc:
                errors.append(repr(exc))
                return

    def client(c: int) -> None:
        with httpx.Client(timeout=300) as http:
            k = 0
            while not done.is_set():
                post(http, body(c, k))
                k += 1

    threads = [threading.Thread(target=client, args=(c,), daemon=True) for c in range(n)]
    for t in threads:
        t.start()
    try:
        yield errors
    finally:
        done.set()
        for t in threads:
            t.join(300)
