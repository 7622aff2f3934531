"""The llama-server binary `specview info` names: $SPECVIEW_LLAMA_SERVER, else the one on PATH.

specview runs no llama-server itself (it shows the commands that start one, and watches it); the
binary is reported because the commands it prints are meant for it. Its `--version` is asked only
of a regular, executable file, with a deadline: a name pointing at a FIFO, a folder or a dangling
link is described, never run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from specview.boundary.path_kind import FILE, PathKind, path_kind

SERVER_ENV = "SPECVIEW_LLAMA_SERVER"
PROGRAM = "llama-server"
VERSION_TIMEOUT_S = 10.0
MAX_VERSION_BYTES = 4096


@dataclass(frozen=True, slots=True)
class LlamaServer:
    """Where the binary is (None: none found), who named it (SERVER_ENV or "PATH"), what the name
    is, and the first line of its `--version` (None when not asked or it said nothing)."""

    path: str | None
    named_by: str
    kind: PathKind | None = None
    version: str | None = None


def find_llama_server() -> LlamaServer:
    """The binary SERVER_ENV names, else PATH's; its version where it can be run."""
    named = os.environ.get(SERVER_ENV)
    if named:
        path, by = named, SERVER_ENV
    else:
        found = shutil.which(PROGRAM)
        if found is None:
            return LlamaServer(None, "PATH")
        path, by = found, "PATH"
    kind = path_kind(path)
    runnable = kind.kind == FILE and os.access(path, os.X_OK)
    return LlamaServer(path, by, kind, _version(Path(path)) if runnable else None)


def _version(path: Path) -> str | None:
    """The line of `llama-server --version` that names the version (it prints to stderr)."""
    try:
        done = subprocess.run([str(path), "--version"], stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=VERSION_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    said = (done.stdout[:MAX_VERSION_BYTES] + b"\n" + done.stderr[:MAX_VERSION_BYTES]).decode("utf-8", "replace")
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    return next((line for line in lines if line.lower().startswith("version")), lines[0] if lines else None)
