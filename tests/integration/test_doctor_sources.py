"""`specview doctor --prometheus` and `--targets` against a real n-gram llama-server (Gemma 3 270M)
and a real Prometheus scraping it every second. `doctor URL` drives a few probes; then `doctor
--prometheus`, over a window Prometheus holds that spans them, must say the same: on, γ, the
drafts in the window and the per-position curve to the count, and "cannot tell" for the method
(Prometheus has no /props or /slots). A targets file names the same server. Run as a user runs it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.limited_run import base_env, run_cli
from tests.support.llama_server import NGRAM_ARGS, RunningServer, llama_server, server_binary
from tests.support.prometheus import RunningPrometheus, prometheus, prometheus_binary
from tests.support.waiting import wait_until

pytestmark = [
    pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)"),
    pytest.mark.skipif(prometheus_binary() is None, reason="prometheus not installed (make deps-debian)"),
]

TIME_LIMIT = 240.0
SLACK_S = 3.0  # the window reaches this far before the probes: `doctor --prometheus` starts later than asked


@dataclass
class Setup:
    server: RunningServer
    prometheus: RunningPrometheus

    @property
    def instance(self) -> str:
        return self.server.root.removeprefix("http://")


@pytest.fixture(scope="module")
def setup() -> Iterator[Setup]:
    with ExitStack() as stack:
        server = stack.enter_context(llama_server(NGRAM_ARGS))
        prom = stack.enter_context(prometheus([server.root.removeprefix("http://")], scrape_s=1.0))
        yield Setup(server, prom)


def scraped_at(prom: RunningPrometheus, instance: str, at: float | None = None) -> float:
    """The time of the last scrape of `instance` Prometheus holds (at `at`, default now); 0 before any."""
    params = {"query": f'timestamp(up{{instance="{instance}"}})', **({"time": f"{at:.3f}"} if at else {})}
    result = httpx.get(f"{prom.url}/api/v1/query", params=params, timeout=5).json()["data"]["result"]
    return float(result[0]["value"][1]) if result else 0.0


def scraped_after(setup: Setup, t: float) -> None:
    wait_until(lambda: scraped_at(setup.prometheus, setup.instance) > t, 15, f"no scrape after {t}")


def doctor(home: Path, *args: str) -> dict[str, Any]:
    run = run_cli(["doctor", "--json", *args], base_env(home), timeout=TIME_LIMIT)
    assert not run.timed_out and run.returncode == 0, run.err
    return dict(json.loads(run.out))


def by_id(server: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in server["findings"]}


def evidence(finding: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e["value"] for e in finding["evidence"]}


def test_through_prometheus_doctor_says_what_it_says_of_the_server(setup: Setup, tmp_path: Path) -> None:
    began = time.time()  # the server is idle from here until the probes
    wait_until(lambda: scraped_at(setup.prometheus, setup.instance, time.time() - SLACK_S) > began, 30,
               "no scrape to start the window at")
    mark = time.time() - SLACK_S  # Prometheus holds a scrape of the idle server in [began, mark]
    direct = doctor(tmp_path, setup.server.root, "--window", "1", "--probe", "3")
    scraped_after(setup, time.time())  # ... and one after they all ended
    window = f"{time.time() - mark:.3f}"
    through = doctor(tmp_path, "--prometheus", setup.prometheus.url, "--match", '{job="specview-test"}',
                     "--window", window)
    (one,), (other,) = direct["servers"], through["servers"]
    assert other["via"] == "prometheus" and one["via"] is None
    assert other["url"] == setup.instance and other["engine"] == one["engine"] == "llama-server"
    found, seen = by_id(one), by_id(other)
    assert "on" in found and "on" in seen and "off" not in seen
    on, on_p = evidence(found["on"]), evidence(seen["on"])
    assert on["gamma"] == on_p["gamma"] == 4
    assert on["drafted_in_window"] == on_p["drafted_in_window"] > 0  # to the count
    assert on["tokens_in_window"] == on_p["tokens_in_window"]
    assert "ngram-simple" in one["method"] and other["method"] is None
    assert on_p["method"] is None and "cannot tell" in seen["on"]["text"]
    assert seen["on"]["confidence"]["level"] == "high"  # on/off rests on the counters alone
    (gamma,), (gamma_p,) = ([f for i, f in f_.items() if i.startswith("gamma_")] for f_ in (found, seen))
    curve = {k: v for k, v in evidence(gamma).items() if k.startswith("position_")}
    assert len(curve) == 4 and curve == {k: v for k, v in evidence(gamma_p).items() if k.startswith("position_")}
    rates = ("alpha", "yield", "tau", "drafts", "accepted")
    assert {k: evidence(found["pays_unknown"])[k] for k in rates} == \
        {k: evidence(seen["pays_unknown"])[k] for k in rates}
    words = run_cli(["doctor", "--prometheus", setup.prometheus.url, "--window", window, "--lang", "zh"],
                    base_env(tmp_path), timeout=TIME_LIMIT)
    assert words.returncode == 0 and "经由 Prometheus" in words.out and "方法无法判断" in words.out


def test_a_targets_file_names_the_servers(setup: Setup, tmp_path: Path) -> None:
    targets = tmp_path / "targets.txt"
    targets.write_text(f"# the n-gram server\n\n{setup.server.root}  # Gemma\n")
    report = doctor(tmp_path, "--targets", str(targets), "--window", "1", "--probe", "2")
    (server,) = report["servers"]
    assert server["url"] == setup.server.root and server["probes"] == 2
    assert by_id(server)["on"]["confidence"]["level"] == "high"


def test_a_file_that_is_not_a_targets_file_is_one_line(setup: Setup, tmp_path: Path) -> None:
    bad = tmp_path / "targets.txt"
    bad.write_text(f"{setup.server.root}\nthis is not a url\n")
    run = run_cli(["doctor", "--targets", str(bad), "--window", "1"], base_env(tmp_path), timeout=TIME_LIMIT)
    assert run.returncode == 2 and not run.out
    assert run.err.count("\n") == 1 and "--targets" in run.err and "line 2" in run.err
