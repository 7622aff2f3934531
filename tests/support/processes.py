"""Ending what a test started: by process (or process group) id, politely first, never by name."""

from __future__ import annotations

import os
import signal
import subprocess
from contextlib import suppress
from pathlib import Path


def stop(proc: subprocess.Popen[bytes], *, group: bool = False, timeout: float = 10.0) -> None:
    """SIGTERM `proc` (its whole process group when `group`: it must lead one), SIGKILL after `timeout`."""
    def send(sig: int) -> None:
        with suppress(ProcessLookupError):
            if group:
                os.killpg(proc.pid, sig)
            else:
                os.kill(proc.pid, sig)

    if proc.poll() is None or group:
        send(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        proc.wait(timeout=timeout)


def log_tail(log: Path, lines: int = 30) -> str:
    """The last lines of a server's log (empty when it cannot be read): what a failed wait shows."""
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
