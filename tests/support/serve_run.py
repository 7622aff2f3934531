"""`specview serve` started for a test: its URL with the token, what it printed, the specview
processes it started (each browser session runs one).

The server runs in a session of its own, so it and every app it started end together, by the
group's id. It starts in a folder of its own (`cwd`) with a home of its own (`home`, as
limited_run's `base_env` makes it), so a test can tell that nothing was written there.
"""

from __future__ import annotations

import os
import re
import resource
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from tests.support.limited_run import base_env
from tests.support.processes import stop
from tests.support.waiting import wait_until

SPECVIEW = Path(sys.executable).parent / "specview"
START_TIMEOUT_S = 30.0
URL_LINE = re.compile(r"^specview serve: open (http://\S+)/\?token=([A-Za-z0-9_-]{43}) in a browser", re.M)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class Served:
    """A running `specview serve`."""

    proc: subprocess.Popen[bytes]
    port: int
    base: str  # http://127.0.0.1:PORT, as the server names itself
    token: str
    cwd: Path
    home: Path
    out: Path  # its stdout
    err: Path  # its stderr

    @property
    def url(self) -> str:
        """The page's URL, as printed at start."""
        return f"{self.base}/?token={self.token}"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stderr_lines(self) -> list[str]:
        return self.err.read_text(errors="replace").splitlines()

    def rss(self) -> int:
        """The server's resident memory in bytes."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(status.split("VmRSS:")[1].split()[0]) * 1024

    def apps(self) -> int:
        """How many specview apps it runs now (live processes below it started as `python -m specview`)."""
        return sum(1 for pid in descendants(self.proc.pid) if _is_live_app(pid))


def descendants(root: int) -> set[int]:
    """Every process below `root`, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with suppress(OSError, ValueError, IndexError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                ppid = int(stat.rpartition(")")[2].split()[1])
                children.setdefault(ppid, []).append(int(entry))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _is_live_app(pid: int) -> bool:
    with suppress(OSError):
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        return state != "Z" and argv[1:3] == [b"-m", b"specview"]
    return False


@contextmanager
def serving(tmp: Path, *args: str, port: int | None = None, memory: int | None = None) -> Iterator[Served]:
    """`specview serve --port N ARGS…` until the context ends, once it has printed its URL; under an
    address-space limit of `memory` bytes (it and each app it starts), if given."""
    port = port or free_port()
    cwd, home = tmp / "cwd", tmp / "home"
    cwd.mkdir(exist_ok=True)
    out, err = tmp / "serve.out", tmp / "serve.err"

    def limits() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen([str(SPECVIEW), "serve", "--port", str(port), *args], env=base_env(home), cwd=cwd,
                                stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, start_new_session=True,
                                preexec_fn=limits)
    try:
        def ready() -> bool:
            assert proc.poll() is None, err.read_text(errors="replace")
            return URL_LINE.search(out.read_text(errors="replace")) is not None and listening(port)

        # the URL is printed as the server starts, a moment before it listens
        wait_until(ready, START_TIMEOUT_S, "specview serve to print its URL and listen")
        found = URL_LINE.search(out.read_text(errors="replace"))
        assert found is not None
        yield Served(proc, port, found.group(1), found.group(2), cwd, home, out, err)
    finally:
        stop(proc, group=True)
