"""Start the real Prometheus (the Debian `prometheus` package) on 127.0.0.1, for tests and benchmarks.

It gets a free port, a temporary storage directory and a written config that scrapes the given
targets every `scrape_s` seconds (1 s by default) under one job (or the config a test writes).
Starting waits for /-/ready and then for every target to be up in /api/v1/targets (bounded); the
process is stopped by its id when the block ends, and its storage deleted.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.support.llama_server import free_port
from tests.support.processes import log_tail, stop

START_TIMEOUT_S = 60.0


def prometheus_binary() -> Path | None:
    """The Prometheus to run ($SPECVIEW_PROMETHEUS or /usr/bin/prometheus), or None when absent."""
    named = os.environ.get("SPECVIEW_PROMETHEUS") or shutil.which("prometheus") or "/usr/bin/prometheus"
    path = Path(named)
    return path if path.is_file() and os.access(path, os.X_OK) else None


@dataclass(frozen=True, slots=True)
class RunningPrometheus:
    """A started Prometheus: its URL and its log."""

    url: str
    log: Path

    def log_tail(self, lines: int = 30) -> str:
        return log_tail(self.log, lines)

    def targets_up(self) -> dict[str, str]:
        """Each active target's `instance` label and its health ("up", "down", "unknown")."""
        active = httpx.get(f"{self.url}/api/v1/targets", timeout=5).json()["data"]["activeTargets"]
        return {t["labels"]["instance"]: t["health"] for t in active}

    def wait_for_targets(self, instances: Sequence[str], health: str = "up", timeout: float = START_TIMEOUT_S) -> None:
        """Until every one of `instances` ("host:port") has `health`; TimeoutError (with the log) else."""
        deadline = time.monotonic() + timeout
        seen: dict[str, str] = {}
        while time.monotonic() < deadline:
            seen = self.targets_up()
            if all(seen.get(i) == health for i in instances):
                return
            time.sleep(0.2)
        raise TimeoutError(f"targets not {health} after {timeout:g} s: {seen}\n{self.log_tail()}")


def config_text(targets: Sequence[str], scrape_s: float, job: str) -> str:
    """A Prometheus config scraping `targets` ("host:port", /metrics) every `scrape_s` seconds."""
    listed = ", ".join(f"'{t}'" for t in targets)
    interval = f"{int(scrape_s * 1000)}ms"
    return (f"global:\n  scrape_interval: {interval}\n  scrape_timeout: {interval}\n"
            f"scrape_configs:\n  - job_name: '{job}'\n    static_configs:\n      - targets: [{listed}]\n")


@contextmanager
def prometheus(targets: Sequence[str], *, scrape_s: float = 1.0, job: str = "specview-test",
               wait_up: bool = True, config_yaml: str | None = None) -> Iterator[RunningPrometheus]:
    """Run Prometheus scraping `targets` until the block ends (see the module docstring);
    `config_yaml` replaces the written config (wait for its targets yourself: `wait_up=False`)."""
    binary = prometheus_binary()
    if binary is None:
        raise FileNotFoundError("prometheus is not installed: run `make deps-debian` or set SPECVIEW_PROMETHEUS")
    home = Path(tempfile.mkdtemp(prefix="specview-prometheus-"))
    config = home / "prometheus.yml"
    config.write_text(config_yaml if config_yaml is not None else config_text(targets, scrape_s, job))
    port = free_port()
    log = home / "prometheus.log"
    args = [str(binary), f"--config.file={config}", f"--storage.tsdb.path={home / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=1d", "--log.level=warn"]
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as sink:
        proc = subprocess.Popen(args, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        running = RunningPrometheus(url, log)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"prometheus exited ({proc.returncode}):\n{running.log_tail()}")
            try:
                if httpx.get(f"{url}/-/ready", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"prometheus not ready after {START_TIMEOUT_S:g} s:\n{running.log_tail()}")
            time.sleep(0.2)
        if wait_up:
            running.wait_for_targets(targets)
        yield running
    finally:
        stop(proc)
        shutil.rmtree(home, ignore_errors=True)
