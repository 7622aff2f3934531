"""`--on-alert CMD`: run the user's command with an alert as JSON on its standard input.

No shell: CMD is split like a shell would split it (shlex) and run as that argv, so nothing the
alert holds (an instance name, an error a server sent) is ever read by a shell. Whoever wants a
shell writes one: `--on-alert 'sh -c "… | mail ops"'`. Bounded, so a fleet in trouble never
runs away with the machine:

- at most once per alert (instance and kind) per alert window, from the poll where it begins
  firing (an alert still firing a window later runs again);
- each run ends after `timeout_s` (its whole process group is killed); at most MAX_RUNNING at
  once (a run that would be one more is skipped, and counted);
- its output is read up to MAX_OUTPUT_BYTES (the rest is read and dropped) and kept only for
  the caller to say why it failed: it never reaches the terminal raw.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from specview.features.watch.model.fleet import Alert, AlertKind
from specview.kernel.errors import CliError

MAX_RUNNING = 4
MAX_OUTPUT_BYTES = 4096
MAX_STDIN_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class HookRun:
    """How one run ended: its exit status (None: killed at the timeout, or it could not start)."""

    alert: Alert
    status: int | None
    timed_out: bool
    output: bytes  # its first MAX_OUTPUT_BYTES of stdout and stderr (untrusted: sanitize to show)
    error: str | None = None  # why it could not start


def command_argv(command: str) -> list[str]:
    """CMD as an argv, or CliError naming what is wrong with it."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise CliError("watcherr.hook.split", reason=str(exc)) from None
    if not argv:
        raise CliError("watcherr.hook.empty")
    return argv


class AlertHook:
    """Runs the command for the alerts that are due; `done` is told how each run ended."""

    def __init__(self, command: str, window_s: float, timeout_s: float = 10.0,
                 done: Callable[[HookRun], None] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.argv = command_argv(command)
        self.window_s, self.timeout_s = window_s, timeout_s
        self._done = done
        self._clock = clock
        self._last: dict[tuple[str | None, AlertKind], float] = {}
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self.started = 0
        self.skipped = 0  # due, but MAX_RUNNING runs were still going

    def due(self, alerts: tuple[Alert, ...]) -> list[Alert]:
        """The firing alerts whose command has not run within the window; marks them run."""
        now = self._clock()
        chosen = []
        for alert in alerts:
            key = (alert.instance, alert.kind)
            last = self._last.get(key)
            if last is None or now - last >= self.window_s:
                self._last[key] = now
                chosen.append(alert)
        return chosen

    def fire(self, alerts: tuple[Alert, ...], as_json: Callable[[Alert], str]) -> None:
        """Start a run for each alert that is due (`as_json`: the alert's stdin)."""
        for alert in self.due(alerts):
            with self._lock:
                self._threads = [t for t in self._threads if t.is_alive()]
                if len(self._threads) >= MAX_RUNNING:
                    self.skipped += 1
                    continue
                payload = as_json(alert).encode("utf-8")[:MAX_STDIN_BYTES]
                thread = threading.Thread(target=self._run, args=(alert, payload), name="specview-on-alert",
                                          daemon=True)
                self._threads.append(thread)
                self.started += 1
            thread.start()

    def _run(self, alert: Alert, payload: bytes) -> None:
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            self._report(HookRun(alert, None, False, b"", exc.strerror or type(exc).__name__))
            return
        kept = bytearray()
        reader = threading.Thread(target=_drain, args=(proc, kept), daemon=True)
        reader.start()
        try:
            assert proc.stdin is not None
            proc.stdin.write(payload)
            proc.stdin.close()
        except OSError:  # it did not read its input: its business
            pass
        timed_out = False
        try:
            status: int | None = proc.wait(self.timeout_s)
        except subprocess.TimeoutExpired:
            timed_out, status = True, None
            _kill(proc)
        reader.join(1.0)
        self._report(HookRun(alert, status, timed_out, bytes(kept)))

    def _report(self, run: HookRun) -> None:
        if self._done is not None:
            self._done(run)

    def close(self, wait_s: float = 0.0) -> None:
        """Wait up to `wait_s` for the runs still going (each ends by its timeout anyway)."""
        deadline = time.monotonic() + wait_s
        for thread in list(self._threads):
            thread.join(max(0.0, deadline - time.monotonic()))


def _drain(proc: subprocess.Popen[bytes], kept: bytearray) -> None:
    """Read the run's output to its end, keeping the first MAX_OUTPUT_BYTES."""
    assert proc.stdout is not None
    with proc.stdout:
        while chunk := proc.stdout.read(4096):
            room = MAX_OUTPUT_BYTES - len(kept)
            if room > 0:
                kept.extend(chunk[:room])


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """The run and everything it started (its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    proc.wait()
