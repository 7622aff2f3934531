"""`--on-alert CMD`: run the user's command with an alert as JSON on its standard input.

No shell: CMD is split like a shell would split it (shlex) and run as that argv, so nothing the
alert holds (an instance name, an error a server sent) is ever read by a shell. Whoever wants a
shell writes one: `--on-alert 'sh -c "… | mail ops"'`. Bounded, so a fleet in trouble never
runs away with the machine:

- at most once per alert (instance and kind) per alert window, from the poll where it begins
  firing (an alert still firing a window later runs again);
- at most MAX_RUNNING runs at once; an alert due while they run waits in a bounded queue per
  instance (model/alert_queue.py: fair between instances, the oldest coalesced into a newer
  one when full) and starts as soon as a run ends. `counts()` says what runs, waits and was
  coalesced: the fleet screen and `--json` show it with every poll;
- each run is its own process group (its own session: the terminal's Ctrl-C never reaches
  it), and specview ends that group — SIGTERM, then SIGKILL after END_GRACE_S — at its
  `timeout_s`, when its command exits (what it left running), and when specview ends (`close`;
  an exit hook too, should a path out miss it). The thread that waits on a run is not a
  daemon: an exit that skipped `close` still waits for the timeout's kill;
- its output is read up to MAX_OUTPUT_BYTES (the rest is read and dropped) and kept only for
  the caller to say why it failed: it never reaches the terminal raw.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import selectors
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from specview.features.watch.model.alert_queue import AlertQueue, HookCounts
from specview.features.watch.model.fleet import Alert, AlertKind
from specview.kernel.errors import CliError

MAX_RUNNING = 4
MAX_OUTPUT_BYTES = 4096
MAX_STDIN_BYTES = 64 * 1024
END_GRACE_S = 1.0  # from SIGTERM to SIGKILL when a run's process group is ended
GONE_POLL_S = 0.02  # how often an ending group is looked at (it has no descriptor to wait on)
PIPE_CHUNK = 4096
JOIN_S = 2.0  # how long `close` waits for each run's thread once its group is ended

AsJson = Callable[[Alert], str]


@dataclass(frozen=True, slots=True)
class HookRun:
    """How one run ended: its exit status (None: killed at the timeout, or it could not start)."""

    alert: Alert
    status: int | None
    timed_out: bool
    output: bytes  # its first MAX_OUTPUT_BYTES of stdout and stderr (untrusted: sanitize to show)
    error: str | None = None  # why it could not start
    stopped: bool = False  # ended because specview ended (counted by `close`, not a failure of its own)


def command_argv(command: str) -> list[str]:
    """CMD as an argv, or CliError naming what is wrong with it."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise CliError("watcherr.hook.split", reason=str(exc)) from None
    if not argv:
        raise CliError("watcherr.hook.empty")
    return argv


class _HookRun:
    """One run: its alert, then its process; ended once (by its own thread or by `close`)."""

    def __init__(self, alert: Alert, as_json: AsJson) -> None:
        self.alert, self.as_json = alert, as_json
        self.proc: subprocess.Popen[bytes] | None = None
        self.stopped = False  # specview is ending: whatever it did, it was cut short
        self._ending = threading.Lock()
        self._ended = False

    def terminate(self) -> None:
        """SIGTERM to its group now, without waiting (unless its own thread is ending it already)."""
        if not self._ending.acquire(blocking=False):
            return
        try:
            proc = self.proc
            if proc is None or self._ended:
                return
            if _group_left(proc):
                _signal_group(proc.pid, signal.SIGTERM)
            else:  # nothing left: its id is never signalled again (see `end`)
                self._ended = True
        finally:
            self._ending.release()

    def end(self, deadline: float | None = None) -> None:
        """End its process group: SIGTERM, SIGKILL to what is left at `deadline` (END_GRACE_S from
        now by default); the command reaped.

        The group's id is the command's process id, which stays reserved while the command is
        not reaped or any member lives: a group found empty is never signalled again, so a
        signal never reaches a stranger that was given the id later."""
        with self._ending:
            proc = self.proc
            if proc is None or self._ended:
                return
            self._ended = True
            if not _group_left(proc):
                return
            deadline = deadline if deadline is not None else time.monotonic() + END_GRACE_S
            _signal_group(proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(max(0.0, deadline - time.monotonic()))
            while _group_left(proc) and time.monotonic() < deadline:
                time.sleep(GONE_POLL_S)
            if _group_left(proc):
                _signal_group(proc.pid, signal.SIGKILL)
            proc.wait()


class AlertHook:
    """Runs the command for the alerts that are due; `done` is told how each run ended."""

    def __init__(self, command: str, window_s: float, timeout_s: float = 10.0,
                 done: Callable[[HookRun], None] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.argv = command_argv(command)
        self.window_s, self.timeout_s = window_s, timeout_s
        self._done = done
        self._clock = clock
        self._last: dict[tuple[str | None, AlertKind], float] = {}
        self._queue: AlertQueue[tuple[Alert, AsJson]] = AlertQueue()
        self._runs: dict[_HookRun, threading.Thread] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # a run ended
        self._closed = False
        self.started = 0
        self.coalesced = 0  # gave way, while waiting, to a newer alert of their instance
        self.timed_out = 0
        self.not_run = 0  # still waiting when `close` came
        self.ended_at_exit = 0  # still running when `close` came: their groups were ended
        atexit.register(self.close)  # a way out that missed `close` (unregistered by it)

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

    def fire(self, alerts: tuple[Alert, ...], as_json: AsJson) -> None:
        """Queue each alert that is due (`as_json`: the alert's stdin) and start what may start."""
        with self._lock:
            if self._closed:  # a poll that ended after `close` (the screen's worker): nothing starts
                return
            for alert in self.due(alerts):
                self.coalesced += self._queue.put(alert.instance, alert.kind, (alert, as_json))
            self._start_waiting()

    def counts(self) -> HookCounts:
        """Where the runs stand now."""
        with self._lock:
            return HookCounts(self.started, len(self._runs), len(self._queue), self.coalesced, self.timed_out)

    def _start_waiting(self) -> None:
        """Start waiting alerts while fewer than MAX_RUNNING run (the lock held)."""
        while len(self._runs) < MAX_RUNNING and (item := self._queue.take()) is not None:
            run = _HookRun(*item)
            thread = threading.Thread(target=self._run, args=(run,), name="specview-on-alert")
            self._runs[run] = thread
            try:
                thread.start()
            except RuntimeError:  # no thread to be had now: it waits again, for the next run's end or poll
                del self._runs[run]
                self.coalesced += self._queue.put(run.alert.instance, run.alert.kind, item)
                return
            self.started += 1

    def _run(self, run: _HookRun) -> None:
        result: HookRun | None = None
        try:
            result = self._execute(run)
            if result is not None and self._done is not None:
                self._done(result)  # before the run counts as ended: `close` returns after it is told
        finally:
            with self._lock:
                del self._runs[run]
                if result is not None and result.timed_out:
                    self.timed_out += 1
                if not self._closed:
                    self._start_waiting()
                self._changed.notify_all()

    def _execute(self, run: _HookRun) -> HookRun | None:
        payload = run.as_json(run.alert).encode("utf-8")[:MAX_STDIN_BYTES]
        with self._lock:  # `close` either sees the process, or this sees `close`
            if self._closed:
                return None
            try:
                run.proc = proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                   stderr=subprocess.STDOUT, start_new_session=True)
            except OSError as exc:
                return HookRun(run.alert, None, False, b"", exc.strerror or type(exc).__name__)
        deadline = time.monotonic() + self.timeout_s
        status: int | None = None
        try:
            kept, timed_out = _talk(proc, payload, deadline)
            if not timed_out:
                try:
                    status = proc.wait(max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    timed_out = True
        finally:
            run.end()  # at the timeout: the whole group; after an exit: whatever it left running
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
        if run.stopped:
            return HookRun(run.alert, None, False, bytes(kept), stopped=True)
        return HookRun(run.alert, status, timed_out, bytes(kept))

    def stop(self) -> None:
        """Start nothing more and send SIGTERM to every run's group now, without waiting (the
        UI calls this as it quits; `close` then finishes the ending)."""
        with self._lock:
            self._closed = True
            self.not_run += self._queue.clear()
            runs = list(self._runs)
            self.ended_at_exit += sum(not run.stopped for run in runs)
            for run in runs:
                run.stopped = True
        for run in runs:
            run.terminate()

    def close(self, drain: bool = False) -> None:
        """End `--on-alert`. With `drain`, every alert waiting runs first (each run bounded by its
        timeout); then every run still going is ended (its whole process group), and what still
        waits is counted as not run. Safe to call again, from any way out."""
        atexit.unregister(self.close)
        try:
            with self._lock:
                while drain and not self._closed and (self._runs or len(self._queue)):
                    if not self._runs:
                        self._start_waiting()
                        if not self._runs:  # none could start: nothing would ever end this wait
                            break
                    self._changed.wait(1.0)
        finally:
            self.stop()
            with self._lock:
                runs = dict(self._runs)
            deadline = time.monotonic() + END_GRACE_S  # each group had its SIGTERM: one grace for all
            for run in runs:
                run.end(deadline)
            for thread in runs.values():
                thread.join(JOIN_S)


def _group_left(proc: subprocess.Popen[bytes]) -> bool:
    """Whether anything of the run's process group may still run (its command not reaped yet, or a member alive)."""
    if proc.poll() is None:
        return True
    try:
        os.killpg(proc.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member that changed its user: still there
        return True
    return True


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _talk(proc: subprocess.Popen[bytes], payload: bytes, deadline: float) -> tuple[bytearray, bool]:
    """Give the run its input and read its output (the first MAX_OUTPUT_BYTES kept, the rest read
    and dropped) until the output ends, on this thread; whether `deadline` came first. Neither
    side blocks: a command that never reads its input is still ended at its timeout."""
    assert proc.stdin is not None and proc.stdout is not None
    kept = bytearray()
    left = memoryview(payload)
    with selectors.DefaultSelector() as selector:
        if left:
            os.set_blocking(proc.stdin.fileno(), False)
            selector.register(proc.stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        selector.register(proc.stdout, selectors.EVENT_READ)
        while selector.get_map():
            wait = deadline - time.monotonic()
            if wait <= 0:
                return kept, True
            for key, _ in selector.select(wait):
                if key.fileobj is proc.stdin:
                    try:
                        left = left[os.write(proc.stdin.fileno(), left[:PIPE_CHUNK]):]
                    except BlockingIOError:
                        continue
                    except OSError:  # it did not read its input: its business
                        left = left[:0]
                    if not left:
                        selector.unregister(proc.stdin)
                        proc.stdin.close()
                    continue
                chunk = os.read(proc.stdout.fileno(), PIPE_CHUNK)
                if not chunk:
                    selector.unregister(proc.stdout)
                    continue
                room = MAX_OUTPUT_BYTES - len(kept)
                if room > 0:
                    kept.extend(chunk[:room])
    return kept, False
