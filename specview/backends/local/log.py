"""llama.cpp's log, captured through its log callback so nothing touches the terminal's fds.

llama-cpp-python's own answer (`verbose=False`) dup2's fds 1 and 2 to /dev/null while a
model loads, which would swallow a running Textual app's output. Instead every line goes
to a bounded deque (shown in the app, quoted in error messages) and to a log file, which each
run replaces (boundary/safe_files.py: never through a link, mode 0600).
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections import deque
from pathlib import Path
from typing import IO, Any

from specview.boundary.safe_files import open_new
from specview.boundary.text import sanitize

LEVELS = {0: "none", 1: "debug", 2: "info", 3: "warn", 4: "error", 5: "cont"}  # enum ggml_log_level
DEBUG = 1
ERROR = 4
CONT = 5


def default_log_path() -> Path:
    """$SPECVIEW_LLAMA_LOG, else llama.log in the platform's user log folder."""
    env = os.environ.get("SPECVIEW_LLAMA_LOG")
    if env:
        return Path(env)
    import platformdirs

    return platformdirs.user_log_path("specview") / "llama.log"


class LlamaLog:
    """Collects llama.cpp log fragments into whole lines (process-wide: the callback is global)."""

    def __init__(self, maxlen: int = 1000) -> None:
        self.lines: deque[str] = deque(maxlen=maxlen)
        self.errors: deque[str] = deque(maxlen=100)
        self._n_errors = 0
        self._n_lines = 0
        self.path: Path | None = None
        self._partial = ""
        self._level = 1
        self._file: IO[str] | None = None
        self._lock = threading.Lock()
        self._callback: Any = None
        self.echo: IO[str] | None = None  # also written here (the engine's process: its stderr, kept by the parent)

    def install(self, lib: Any) -> None:
        """Route llama.cpp's log here (idempotent). `lib` is the `llama_cpp.llama_cpp` module."""
        if self._callback is not None:
            return
        self._open_file()

        def on_log(level: int, text: bytes | None, _user: ctypes.c_void_p) -> None:
            self.write(level, (text or b"").decode("utf-8", "replace"))

        self._callback = lib.llama_log_callback(on_log)  # keep a reference: C holds a raw pointer
        lib.llama_log_set(self._callback, ctypes.c_void_p(0))

    def _open_file(self) -> None:
        # the log of this run replaces the last run's, as a new file (0600) renamed over it: never
        # written through a link planted at its name, nor into a FIFO or a device (then no log file)
        path = default_log_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open_new(path, replace=True)
            self.path = path
        except OSError:
            self._file, self.path = None, None

    def write(self, level: int, text: str) -> None:
        """Append one log fragment; complete lines are stored, the rest waits for its newline."""
        with self._lock:
            if level != CONT:
                self._level = level
            self._partial += text
            while "\n" in self._partial:
                line, self._partial = self._partial.split("\n", 1)
                self._store(line.rstrip())

    def _store(self, line: str) -> None:
        # llama.cpp logs GGUF metadata (names, templates) from files we did not write: kept
        # sanitised, so neither the log file nor a message quoting a line carries an escape.
        line = sanitize(line, 4000)
        if not line:
            return
        if self._level != DEBUG:
            self.lines.append(line)
            self._n_lines += 1
        if self._level == ERROR:
            self.errors.append(line)
            self._n_errors += 1
        for out in (self._file, self.echo):
            if out is None or (self._level == DEBUG and out is self.echo):
                continue
            try:
                out.write(f"{LEVELS.get(self._level, '?')}: {line}\n")
                out.flush()
            except OSError:
                if out is self._file:
                    self._file = None

    def mark(self) -> int:
        """A position in the error list, to ask later which errors came after it."""
        with self._lock:
            return self._n_errors

    def line_mark(self) -> int:
        """A position in the (non-debug) line stream, for `lines_since`."""
        with self._lock:
            return self._n_lines

    def lines_since(self, mark: int) -> list[str]:
        """Lines logged after `line_mark()` returned `mark` (as many as are still kept)."""
        with self._lock:
            n = min(self._n_lines - mark, len(self.lines))
            return list(self.lines)[len(self.lines) - n :] if n > 0 else []

    def errors_since(self, mark: int) -> list[str]:
        """Error lines logged after `mark` (see `mark`)."""
        with self._lock:
            n = min(self._n_errors - mark, len(self.errors))
            return list(self.errors)[len(self.errors) - n :] if n > 0 else []

    def last_error(self) -> str | None:
        """The most recent error line llama.cpp logged, if any."""
        with self._lock:
            return self.errors[-1] if self.errors else None

    def tail(self, n: int = 200) -> list[str]:
        """The last `n` log lines."""
        with self._lock:
            return list(self.lines)[-n:]


LOG = LlamaLog()
