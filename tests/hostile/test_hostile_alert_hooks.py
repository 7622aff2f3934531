"""`--on-alert` under a fleet in trouble: alerts wait their turn instead of being dropped, and no
hook outlives its timeout or specview.

specview runs as users run it (`python -m specview watch …`, headless with pipes, or the fleet
screen in a pseudo-terminal) against instances that are down (a port nothing listens on: a
rack gone). The hooks are real processes: each writes its process group's id (its shell's
pid: a run leads its own group) to a file, and starts a child beside itself, so "gone" means
the whole group, checked in /proc (zombies waiting for a reaper do not count).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from tests.support.exporter import nobody_url
from tests.support.limited_run import ROOT, base_env, run_cli, run_tty
from tests.support.processes import stop
from tests.support.waiting import wait_until

MAX_RUNNING = 4  # runner/alert_hook.py: runs at once


def group_members(pgid: int) -> list[int]:
    """The live processes of process group `pgid` (a zombie is dead, only not yet reaped)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended while we looked
            continue
        state, _ppid, pgrp = stat[stat.rindex(")") + 2:].split()[:3]
        if int(pgrp) == pgid and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def groups_in(pids: Path) -> list[int]:
    """The groups the hooks wrote down (one line each, as they started)."""
    return [int(line) for line in pids.read_text().split()] if pids.exists() else []


def slow_hook(pids: Path, ignore_term: bool = False) -> str:
    """A hook that runs for 71 s with a child beside it; `ignore_term`: it and its child ignore SIGTERM."""
    trap = "trap '' TERM; " if ignore_term else ""
    return shlex.join(["sh", "-c", f"{trap}echo $$ >> {shlex.quote(str(pids))}; sleep 71 & sleep 71"])


@contextmanager
def leftovers_ended(pids: Path) -> Iterator[None]:
    """Whatever the test found, no hook it caused stays behind it."""
    try:
        yield
    finally:
        for pgid in groups_in(pids):
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)


class Watch:
    """A headless `specview watch` in the background, its JSON lines read as they come."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "specview", "watch", *args], cwd=ROOT, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.records: list[dict[str, object]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.records.append(json.loads(line))

    def hooks(self) -> list[dict[str, int]]:
        return [r["on_alert"] for r in self.records]  # type: ignore[misc]

    def end(self, sig: int, timeout: float = 20.0) -> tuple[int, str]:
        """Send `sig`; its exit code and stderr once it is gone."""
        self.proc.send_signal(sig)
        try:
            _, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop(self.proc)
            raise
        self._reader.join(5)
        return self.proc.returncode, err.decode("utf-8", "replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            stop(self.proc)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return base_env(tmp_path)


def test_five_instances_down_at_once_each_get_their_hook(tmp_path: Path, env: dict[str, str]) -> None:
    """A rack goes down: five alerts in one poll, more than run at once; each waits its turn."""
    runs = tmp_path / "runs"
    runs.mkdir()
    rack = [nobody_url() for _ in range(5)]
    hook = shlex.join(["sh", "-c", f"cat > {shlex.quote(str(runs))}/$$.json"])  # exits as soon as it has read
    run = run_cli(["watch", *(a for url in rack for a in ("--url", url)), "-d", "0.3", "--count", "8", "--json",
                   "--alert-window", "60", "--on-alert", hook], env, timeout=60)
    assert run.returncode == 0 and not run.timed_out, run.err
    alerted = sorted(json.loads(f.read_text())["instance"] for f in runs.iterdir())
    assert alerted == sorted(rack)  # every instance's hook ran, each once
    hooks = [json.loads(line)["on_alert"] for line in run.out.splitlines()]
    first, last = hooks[0], hooks[-1]
    assert first["running"] <= MAX_RUNNING and first["started"] + first["waiting"] == 5
    assert last == {"started": 5, "running": 0, "waiting": 0, "coalesced": 0, "timed_out": 0}  # before the end
    assert "--on-alert" not in run.err  # nothing coalesced, nothing cut short


def test_an_alert_due_again_while_it_waits_is_coalesced_counted_and_said(tmp_path: Path,
                                                                         env: dict[str, str]) -> None:
    """Slow hooks and a short alert window: the alerts that keep waiting are coalesced, and
    counted in every JSON line; SIGTERM then ends every hook's process group and says what waited."""
    pids = tmp_path / "pids"
    rack = [nobody_url() for _ in range(5)]
    with leftovers_ended(pids):
        watch = Watch([*(a for url in rack for a in ("--url", url)), "-d", "0.3", "--json", "--alert-window", "1",
                       "--on-alert", slow_hook(pids), "--on-alert-timeout", "60"], env)
        try:
            wait_until(lambda: any(h["coalesced"] >= 1 for h in watch.hooks()), 30, "an alert coalesced")
            hooks = watch.hooks()
            assert all(h["running"] <= MAX_RUNNING for h in hooks)
            assert hooks[0]["started"] == MAX_RUNNING and hooks[0]["waiting"] == 1
            code, err = watch.end(signal.SIGTERM)
        finally:
            watch.close()
        assert code == 128 + signal.SIGTERM, err
        groups = groups_in(pids)
        assert len(groups) == MAX_RUNNING  # the fifth never had a free place
        wait_until(lambda: not any(group_members(g) for g in groups), 5, "every hook's group gone")
        (said,) = [line for line in err.splitlines() if "--on-alert" in line]
        assert "coalesced while waiting" in said and f"their process groups ended: {MAX_RUNNING}" in said


def test_a_hook_past_its_timeout_is_ended_with_its_whole_group(tmp_path: Path, env: dict[str, str]) -> None:
    pids = tmp_path / "pids"
    with leftovers_ended(pids):
        watch = Watch(["--url", nobody_url(), "-d", "0.3", "--json", "--alert-window", "60",
                       "--on-alert", slow_hook(pids), "--on-alert-timeout", "1"], env)
        try:
            wait_until(lambda: len(groups_in(pids)) == 1, 30, "the hook started")
            (group,) = groups_in(pids)
            assert len(group_members(group)) == 3  # the shell and two sleeps
            wait_until(lambda: not group_members(group), 10, "its group gone after the timeout")
            assert watch.proc.poll() is None  # specview still watching: the timeout did it
            wait_until(lambda: any(h["timed_out"] == 1 and h["running"] == 0 for h in watch.hooks()), 10,
                       "the timeout counted")
            code, err = watch.end(signal.SIGTERM)
        finally:
            watch.close()
        assert code == 128 + signal.SIGTERM
        assert "ran past 1 s and was stopped" in err


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 128 + signal.SIGTERM), (signal.SIGINT, 130)])
def test_no_hook_outlives_specview_ended_by_a_signal(tmp_path: Path, env: dict[str, str], sig: int,
                                                      code: int) -> None:
    """Killed (SIGTERM) or interrupted (Ctrl-C: a terminal sends it to specview's group, never to
    the hooks', which lead their own), specview ends every running hook's group before it goes."""
    pids = tmp_path / "pids"
    with leftovers_ended(pids):
        watch = Watch(["--url", nobody_url(), "-d", "0.3", "--json", "--on-alert", slow_hook(pids),
                       "--on-alert-timeout", "60"], env)
        try:
            wait_until(lambda: len(groups_in(pids)) == 1 and bool(group_members(groups_in(pids)[0])), 30,
                       "the hook started")
            (group,) = groups_in(pids)
            exit_code, err = watch.end(sig)
        finally:
            watch.close()
        assert exit_code == code, err
        wait_until(lambda: not group_members(group), 5, "its group gone with specview")
        assert "still running at the end, their process groups ended: 1" in err


def test_a_hook_that_ignores_sigterm_is_killed_at_its_timeout_before_a_normal_end(
        tmp_path: Path, env: dict[str, str]) -> None:
    """`--once`: specview waits for the run, which its timeout ends (SIGTERM, ignored; then SIGKILL)."""
    pids = tmp_path / "pids"
    with leftovers_ended(pids):
        run = run_cli(["watch", "--url", nobody_url(), "--once", "--json", "--on-alert",
                       slow_hook(pids, ignore_term=True), "--on-alert-timeout", "1"], env, timeout=60)
        assert run.returncode == 0 and not run.timed_out, run.err
        assert "ran past 1 s and was stopped" in run.err
        (group,) = groups_in(pids)
        wait_until(lambda: not group_members(group), 5, "its group gone when specview ended")


def test_the_fleet_screen_shows_the_runs_and_quitting_ends_them(tmp_path: Path, env: dict[str, str]) -> None:
    """On the fleet screen the log's title counts the runs as they go; `q` ends the hook's group."""
    pids = tmp_path / "pids"
    with leftovers_ended(pids):
        run = run_tty(["watch", "--url", nobody_url(), "-d", "0.3", "--on-alert", slow_hook(pids),
                       "--on-alert-timeout", "60"], env, keys=[("--on-alert: 1 running · 0 waiting", b"q")],
                      timeout=60)
        assert run.returncode == 0 and not run.timed_out, run.screens[-1]
        assert run.saw("--on-alert: 1 running · 0 waiting · 0 coalesced")  # what 80 columns keep of it
        (group,) = groups_in(pids)
        wait_until(lambda: not group_members(group), 5, "its group gone when the screen quit")
