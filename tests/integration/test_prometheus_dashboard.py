"""The engines' own words, checked by the engines' own PromQL: vLLM's Grafana dashboard
(`vllm_speculative_decoding.json`) evaluated by a real Prometheus equals what specview's fleet
JSON says over the same window.

A real CPU vLLM with n-gram drafting is loaded by two clients while a real Prometheus scrapes it
every second. Each window specview reads (from one scrape to a later one of the instance) is
evaluated in Prometheus at the later scrape's time with a range that holds exactly those two
scrapes, so `rate()`'s extrapolation to the range's edges is the same factor for every series and
cancels in each ratio. `watch --prometheus --once` reports the window asked with `--interval`
(checked against a look-alike exporter too, which needs no vLLM).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack

import httpx
import pytest

from specview.cli import main
from specview.features.watch.command.fleet_output import snapshot_record
from specview.features.watch.model.fleet_model import FleetModel
from specview.features.watch.source.prometheus import PrometheusFleet
from tests.support.exporter import exporters
from tests.support.prometheus import RunningPrometheus, prometheus, prometheus_binary
from tests.support.vllm_server import NGRAM_CONFIG, vllm_python, vllm_server
from tests.support.watcher import busy_clients

pytestmark = pytest.mark.skipif(prometheus_binary() is None, reason="prometheus not installed (make deps-debian)")

REPEATING = ("one two three four five, one two three four five, one two three four five, one two",
             "red green blue, red green blue, red green blue, red green blue, red")
TOLERANCE = 1e-3
SEL = "{{instance=\"{instance}\"}}"  # the dashboard's $job/$model_name/$instance/$engine, narrowed to one
# the panels' expressions, as vllm_speculative_decoding.json has them ([$__rate_interval] → {r})
DASHBOARD = {
    "acceptance_rate": "sum(rate(vllm:spec_decode_num_accepted_tokens_total{sel}[{r}])) / "
                       "(sum(rate(vllm:spec_decode_num_draft_tokens_total{sel}[{r}])) > 0)",
    "accept_length": "1 + sum(rate(vllm:spec_decode_num_accepted_tokens_total{sel}[{r}])) / "
                     "(sum(rate(vllm:spec_decode_num_drafts_total{sel}[{r}])) > 0)",
    "draft_share": "sum(rate(vllm:spec_decode_num_accepted_tokens_total{sel}[{r}])) / "
                   "(sum(rate(vllm:generation_tokens_total{sel}[{r}])) > 0)",
    "drafts_per_s": "sum(rate(vllm:spec_decode_num_drafts_total{sel}[{r}]))",
    "draft_tokens_per_s": "sum(rate(vllm:spec_decode_num_draft_tokens_total{sel}[{r}]))",
}
PER_POSITION = ("sum by (position) (rate(vllm:spec_decode_num_accepted_tokens_per_pos_total{sel}[{r}])) / on () "
                "group_left () (sum(rate(vllm:spec_decode_num_drafts_total{sel}[{r}])) > 0)")

SCRAPE_JITTER_S = 0.3  # how late Prometheus may take a 1 s scrape while vLLM holds the cores


def query(prom: RunningPrometheus, expr: str, at: float) -> list[dict[str, object]]:
    answer = httpx.get(f"{prom.url}/api/v1/query", params={"query": expr, "time": f"{at:.3f}"}, timeout=10).json()
    assert answer["status"] == "success", answer
    result: list[dict[str, object]] = answer["data"]["result"]
    return result


def dashboard(prom: RunningPrometheus, instance: str, end: float, window_s: float) -> dict[str, object]:
    """Each panel at `end` over a range holding the scrape `window_s` before it and none earlier."""
    r = f"{round(window_s * 1000) + 1}ms"  # ranges are left-open: this one starts 1 ms before the window
    sel = SEL.format(instance=instance)
    found: dict[str, object] = {}
    for key, expr in DASHBOARD.items():
        result = query(prom, expr.format(sel=sel, r=r), end)
        found[key] = float(result[0]["value"][1]) if result else None  # type: ignore[index]
    per_pos = query(prom, PER_POSITION.format(sel=sel, r=r), end)
    by_position = {int(p["metric"]["position"]): float(p["value"][1]) for p in per_pos}  # type: ignore[index]
    found["per_position_marginal"] = [by_position[k] for k in sorted(by_position)]
    return found


def gap(ours: object, theirs: object, key: str) -> float:
    """The largest difference between our value(s) and the dashboard's (relative for rates)."""
    if isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), (key, ours, theirs)
        return max((abs(a - b) for a, b in zip(ours, theirs, strict=True)), default=0.0)
    assert isinstance(ours, float | int) and isinstance(theirs, float), (key, ours, theirs)
    return abs(ours - theirs) / max(1.0, abs(theirs)) if key.endswith("_per_s") else abs(ours - theirs)


def once_window(prom: RunningPrometheus, capsys: pytest.CaptureFixture[str], interval: str) -> float:
    """The window `watch --prometheus --once --json` reports for its one instance."""
    assert main(["watch", "--prometheus", prom.url, "--once", "--json", "-d", interval,
                 "--retention", "1200"]) == 0
    record = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    (row,) = record["instances"]
    window: float = row["window_s"]
    assert record["window_s"] == pytest.approx(window, abs=1e-3)
    return window


def test_once_reads_the_window_asked_not_a_history_step(capsys: pytest.CaptureFixture[str]) -> None:
    """With a retention of 1200 s the history's step is 8 s; `--once -d 3` reads 3 s (give or
    take the 1 s scrape interval), `-d 0.2` the shortest Prometheus has, one scrape interval."""
    stop = threading.Event()
    with exporters(1) as (server,), ExitStack() as stack:
        def load() -> None:
            while not stop.wait(0.1):
                server.advance(10, (8, 6, 4), running=1)

        thread = threading.Thread(target=load, daemon=True)
        thread.start()
        stack.callback(thread.join)
        stack.callback(stop.set)
        prom = stack.enter_context(prometheus([server.root.removeprefix("http://")], scrape_s=1.0))
        deadline = time.monotonic() + 30
        while not query(prom, "count_over_time(up[60s]) >= 6", time.time()):
            assert time.monotonic() < deadline, prom.log_tail()
            time.sleep(0.3)
        assert 2.0 - SCRAPE_JITTER_S <= once_window(prom, capsys, "3") <= 4.0 + SCRAPE_JITTER_S
        assert once_window(prom, capsys, "0.2") == pytest.approx(1.0, abs=0.1)


@pytest.fixture(scope="module")
def loaded_vllm() -> Iterator[tuple[str, RunningPrometheus, str]]:
    """A CPU vLLM (n-gram) scraped every second, loaded by two clients for the length of the tests."""
    if vllm_python() is None:
        pytest.skip("vLLM not installed (make vllm)")
    with vllm_server(NGRAM_CONFIG) as server, ExitStack() as stack:
        target = server.root.removeprefix("http://")
        model = httpx.get(f"{server.url}/models", timeout=10).json()["data"][0]["id"]

        def body(k: int, n: int) -> dict[str, object]:
            return {"model": model, "prompt": REPEATING[(k + n) % 2], "max_tokens": 48, "temperature": 0.0,
                    "seed": n}

        # every counter already moved before a window is compared (a series at 0 is not extrapolated)
        client_once = {"model": model, "prompt": REPEATING[0], "max_tokens": 24, "temperature": 0.0}
        httpx.post(f"{server.url}/completions", json=client_once, timeout=300).raise_for_status()
        prom = stack.enter_context(prometheus([target], scrape_s=1.0))
        errors = stack.enter_context(busy_clients(f"{server.url}/completions", body, 2))
        yield target, prom, server.root
        assert errors == []  # the load ran throughout


def test_the_vllm_dashboards_promql_equals_the_fleet_json(loaded_vllm: tuple[str, RunningPrometheus, str]) -> None:
    target, prom, _root = loaded_vllm
    source = PrometheusFleet(prom.url, window_s=2.0, retention_s=60)
    model = FleetModel(2.0, 60)
    compared = 0
    worst: dict[str, float] = {}
    deadline = time.monotonic() + 120
    try:
        while compared < 6 and time.monotonic() < deadline:
            readings = source.poll()
            snap = model.fold(readings)
            (reading,) = readings
            sample = reading.sample
            if sample is not None and sample.drafts > 0:
                (row,) = snapshot_record(snap, "en")["instances"]
                theirs = dashboard(prom, target, sample.t, sample.dt)
                for key, value in theirs.items():
                    worst[key] = max(worst.get(key, 0.0), gap(row[key], value, key))
                    assert worst[key] <= TOLERANCE, (key, row[key], value, sample.dt)
                assert row["per_position_marginal_basis"] == "marginal"
                assert row["per_position_acceptance_basis"] == "conditional"
                assert row["alpha"] >= row["acceptance_rate"]  # α divides by fewer: the verified drafts
                assert row["counters_update"] == "step"  # vLLM's counters move at every engine step
                compared += 1
            time.sleep(1.5)
    finally:
        source.close()
    print(f"\n{compared} windows compared; largest difference per key: {worst}")
    assert compared >= 3, f"only {compared} windows with drafts"


def test_once_against_vllm_reads_the_asked_window(loaded_vllm: tuple[str, RunningPrometheus, str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    _target, prom, _root = loaded_vllm
    # 3 s give or take the 1 s scrape interval, and the lateness of a scrape on a loaded machine (a CPU vLLM
    # on two cores beside the other test worker: one came 85 ms late), and one scrape of the busy vLLM that
    # Prometheus did not get (a full run read 4.909 s); the history's step would be 8 s
    assert 2.0 - SCRAPE_JITTER_S <= once_window(prom, capsys, "3") <= 5.0 + SCRAPE_JITTER_S
