"""`watch --prometheus` against a Prometheus whose labels, position numbers and time stamps are
hostile: a real HTTP server on 127.0.0.1 speaking Prometheus's query API, and specview run as a
user runs it (a child process, with its address space and its time capped).

- Instances are their label sets: `a` in jobs `x` and `y`, and one whose own `instance` label is
  `x/a` in job `z`, are three rows, and z's alert is said (and `--check` fails) whatever the
  other two are named.
- A `position="1024"` label is a number, not a size: 400 instances with one such series each are
  read within a few hundred MB and seconds, and the series past the most γ specview shows are
  counted and said once.
- A history point stamped outside the range asked is dropped and counted; no window is negative.

The same three instances are also made by a real Prometheus relabelling three exporters (its
history then loses no point: what it answers lies on the steps asked).
"""

from __future__ import annotations

import csv
import io
import json
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specview.features.watch.fleet_app import FleetApp
from specview.features.watch.model import MAX_POSITIONS, WatchSample
from specview.features.watch.model import fleet_model as fleet_model_module
from specview.features.watch.model.fleet import InstanceReading, State
from specview.features.watch.model.fleet_keys import display_names, instance_label
from specview.features.watch.model.fleet_model import FleetModel
from specview.features.watch.screen.fleet import FleetScreen
from specview.features.watch.screen.fleet_instance import InstanceScreen
from specview.features.watch.source.prometheus import PrometheusFleet
from tests.support.app_helpers import wait_until
from tests.support.catalog_walk import screen_text
from tests.support.exporter import exporters
from tests.support.hostile_checks import assert_terminal_clean
from tests.support.hostile_server import HostileServer, hostile_server
from tests.support.limited_run import Run, base_env, run_cli
from tests.support.prometheus import prometheus, prometheus_binary
from tests.support.served import send_json

LLAMA = "llamacpp:spec_decode_"
SCRAPE_S = 5.0  # the fake Prometheus scrapes every instance this often
MEMORY = 600 * 2**20  # the watch's address space: a few times what reading 400 instances needs
TIMEOUT_S = 120.0  # a poll that took 25 s of CPU on a quiet machine ends well within this


@dataclass(frozen=True)
class Instance:
    """One scraped server: its labels and its counters' rates since t = 0 (drafts of `width` tokens)."""

    job: str
    name: str
    drafts_per_s: float = 10.0
    accepted_per_draft: float = 2.0  # 0: speculation not working
    width: int = 3
    positions: tuple[str, ...] = ("0", "1", "2")  # the `position` labels its per-position series carry
    bare: bool = False  # only its scrape time, drafts and per-position series (so the history asks more steps)

    def series(self) -> list[tuple[dict[str, str], Callable[[float], float]]]:
        """(labels, value at scrape time t) of each series the instant query returns for it."""
        base = {"instance": self.name, "job": self.job}
        drafts = self.drafts_per_s
        accepted = drafts * self.accepted_per_draft

        def count(name: str, rate: float) -> tuple[dict[str, str], Callable[[float], float]]:
            return {**base, "__name__": name, "specview_part": "count"}, lambda t: math.floor(rate * t)

        found = [({**base, "specview_part": "scraped"}, lambda t: t), count(LLAMA + "num_drafts_total", drafts)]
        if not self.bare:
            found += [({**base, "specview_part": "up"}, lambda _t: 1.0),
                      count(LLAMA + "num_draft_tokens_total", drafts * self.width),
                      count(LLAMA + "num_accepted_tokens_total", accepted),
                      count("llamacpp:tokens_predicted_total", drafts + accepted)]
        for k, position in enumerate(self.positions):  # front-loaded: each kept draft fills position 0 first
            share = max(0.0, min(1.0, self.accepted_per_draft - k))
            labels, value = count(LLAMA + "num_accepted_tokens_per_pos_total", drafts * share)
            found.append(({**labels, "position": position}, value))
        return found


class FakePrometheus:
    """`/api/v1/query` and `/api/v1/query_range` over `instances`, every value taken at the instance's
    last scrape before the time asked (as Prometheus does), range points on the steps asked;
    `extra_points` adds hostile points to the range answer's series (index → [(t, value)])."""

    def __init__(self, server: HostileServer, instances: list[Instance], t0: float) -> None:
        self.instances, self.t0 = instances, t0
        self.extra_points: dict[int, list[tuple[float, str]]] = {}
        self.sizes: dict[str, int] = {}
        server.wire["/api/v1/query"] = self._instant
        server.wire["/api/v1/query_range"] = self._range

    def _scraped(self, at: float) -> float:
        return self.t0 + math.floor((at - self.t0) / SCRAPE_S) * SCRAPE_S

    def _all(self) -> Iterator[tuple[dict[str, str], Callable[[float], float]]]:
        for instance in self.instances:
            yield from instance.series()

    def _instant(self, handler: BaseHTTPRequestHandler) -> None:
        at = float(parse_qs(urlsplit(handler.path).query)["time"][0])
        scraped = self._scraped(at)
        result = [{"metric": labels, "value": [at, _at(labels, value, scraped, self.t0)]}
                  for labels, value in self._all()]
        self._send(handler, "vector", result)

    def _range(self, handler: BaseHTTPRequestHandler) -> None:
        asked = parse_qs(urlsplit(handler.path).query)
        start, end, step = (float(asked[name][0]) for name in ("start", "end", "step"))
        steps = [round(start + k * step, 3) for k in range(int((end - start) / step + 1e-9) + 1)]
        result = []
        for n, (labels, value) in enumerate(self._all()):
            points: list[list[Any]] = [[t, _at(labels, value, self._scraped(t), self.t0)] for t in steps
                                       if self._scraped(t) >= self.t0]
            points += [[t, v] for t, v in self.extra_points.get(n, [])]
            result.append({"metric": labels, "values": points})
        self._send(handler, "matrix", result)

    def _send(self, handler: BaseHTTPRequestHandler, kind: str, result: list[dict[str, Any]]) -> None:
        answer = {"status": "success", "data": {"resultType": kind, "result": result}}
        self.sizes[kind] = len(json.dumps(answer))
        send_json(handler, 200, answer)


def _at(labels: dict[str, str], value: Callable[[float], float], scraped: float, t0: float) -> str:
    """A series' value at the scrape `scraped`: `timestamp(up)` is the scrape's time itself."""
    return repr(scraped) if labels.get("specview_part") == "scraped" else repr(float(value(scraped - t0)))


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def watch(server: HostileServer, tmp_path: Path, *extra: str, memory: int = MEMORY) -> Run:
    """`specview watch --prometheus` for one snapshot, as a user runs it (capped in memory and time)."""
    return run_cli(["watch", "--prometheus", server.root, "--retention", "120", *extra], base_env(tmp_path),
                   memory=memory, timeout=TIMEOUT_S)


def started(ago: float = 200.0) -> float:
    """A start of the counters `ago` seconds ago, on a whole second."""
    return float(math.floor(time.time() - ago))


def records(run: Run) -> list[dict[str, Any]]:
    return [json.loads(line) for line in run.out.splitlines()]


def test_instances_are_their_label_sets_however_their_instance_labels_read(server: HostileServer,
                                                                           tmp_path: Path) -> None:
    FakePrometheus(server, [Instance("x", "a"), Instance("y", "a"),
                            Instance("z", "x/a", accepted_per_draft=0.0)], started())
    run = watch(server, tmp_path, "--once", "--check", "--json")
    assert not run.timed_out, run.err
    assert run.returncode == 1, (run.returncode, run.err)  # z's alert fires: --check fails
    (record,) = records(run)
    rows = record["instances"]
    assert len(rows) == 3 and record["totals"]["instances"] == 3
    by_labels = {(row["labels"]["job"], row["labels"]["instance"]): row for row in rows}
    assert set(by_labels) == {("x", "a"), ("y", "a"), ("z", "x/a")}
    assert len({row["instance"] for row in rows}) == 3  # shown names tell them apart
    z = by_labels[("z", "x/a")]
    assert [alert["kind"] for alert in z["alerts"]] == ["not_working"]
    assert z["alerts"][0]["instance"] == z["instance"]
    assert not by_labels[("x", "a")]["alerts"] and not by_labels[("y", "a")]["alerts"]
    assert z["alpha"] == 0 and by_labels[("x", "a")]["alpha"] > 0.5


@pytest.mark.parametrize("output", ["--csv", "--check"])
def test_the_three_instances_stay_three_in_every_output(server: HostileServer, tmp_path: Path, output: str) -> None:
    FakePrometheus(server, [Instance("x", "a"), Instance("y", "a"),
                            Instance("z", "x/a", accepted_per_draft=0.0)], started())
    run = watch(server, tmp_path, "--once", output)
    assert not run.timed_out, run.err
    assert_terminal_clean(run.stdout + run.stderr)
    if output == "--csv":
        assert run.returncode == 0, run.err
        rows = [row for row in csv.DictReader(io.StringIO(run.out)) if row["row"] == "instance"]
        assert len(rows) == 3 and len({row["instance"] for row in rows}) == 3
        assert {row["instance"]: row["alerts"] for row in rows}["z/x/a"] == "not_working"
    else:
        assert run.returncode == 1, run.err
        (alert,) = [line for line in run.out.splitlines() if line.startswith("  ! ")]
        assert alert.startswith("  ! z/x/a: speculation not working")


# label values built from what shown names are made of, so that one instance's label can spell another's name
PIECES = st.sampled_from(["a", "x", "/", "{", "}", '"', "\\", "=", "job", " #1", "#", ",", ""])
LABEL = st.lists(PIECES, max_size=6).map("".join)
KEYS = st.lists(st.tuples(LABEL, LABEL).map(lambda pair: (("instance", pair[1]), ("job", pair[0]))), max_size=12)


@settings(max_examples=300, deadline=None)
@given(KEYS)
def test_every_label_set_gets_a_name_of_its_own(keys: list[tuple[tuple[str, str], ...]]) -> None:
    names = display_names(keys)
    assert set(names) == set(keys)
    assert len(set(names.values())) == len(names)  # unique, however the labels were chosen
    labels = [instance_label(key) for key in names]
    for key, name in names.items():  # a label no other key has, and no added label could spell, is the name
        if labels.count(instance_label(key)) == 1 and not {"/", "{"} & set(instance_label(key)):
            assert name == instance_label(key)


def test_the_fleet_keeps_a_bounded_history_however_many_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fleet_model_module, "FLEET_SAMPLES", 2_000)
    monkeypatch.setattr(fleet_model_module, "MIN_HISTORY", 10)
    model = FleetModel(1.0, retention_s=1e9)
    for poll in range(120):
        window = WatchSample(float(poll), 1.0, 10, 30, 20, (9, 7, 4), 40, 1.0)
        snap = model.fold(tuple(InstanceReading(f"i{k}", State.UP, sample=window) for k in range(50)), now=poll)
    assert sum(len(row.alpha_history) for row in snap.rows) <= 2_000
    assert all(len(row.alpha_history) == 40 for row in snap.rows)  # each its share of the fleet's


def relabelled(jobs: dict[str, tuple[str, str]]) -> str:
    """A Prometheus config scraping each job's target (host:port) every second as the instance named."""
    lines = ["global:", "  scrape_interval: 1s", "  scrape_timeout: 1s", "scrape_configs:"]
    for job, (target, instance) in jobs.items():
        lines += [f"  - job_name: '{job}'", "    static_configs:", f"      - targets: ['{target}']",
                  "    relabel_configs:", "      - target_label: instance", f"        replacement: '{instance}'"]
    return "\n".join(lines) + "\n"


@pytest.mark.skipif(prometheus_binary() is None, reason="prometheus not installed (make deps-debian)")
def test_a_real_prometheus_naming_two_instances_alike_and_a_third_like_their_name(tmp_path: Path) -> None:
    stop = threading.Event()
    with exporters(3) as (xa, ya, za):
        def load() -> None:
            while not stop.wait(0.1):
                xa.advance(10, (8, 6, 4), running=1)
                ya.advance(10, (9, 7, 5), running=1)
                za.advance(10, (0, 0, 0), running=1)  # nothing accepted: not working

        thread = threading.Thread(target=load, daemon=True)
        thread.start()
        jobs = {job: (server.root.removeprefix("http://"), instance)
                for job, server, instance in (("x", xa, "a"), ("y", ya, "a"), ("z", za, "x/a"))}
        try:
            with prometheus([], wait_up=False, config_yaml=relabelled(jobs)) as prom:
                def scraped_enough() -> bool:  # every target up, with 8 scrapes of history
                    query = {"query": "min(count_over_time(up[60s])) >= 8 and min(up) == 1 and count(up) == 3"}
                    answer = httpx.get(f"{prom.url}/api/v1/query", params=query, timeout=5).json()
                    return bool(answer["data"]["result"])

                deadline = time.monotonic() + 60
                while not scraped_enough():
                    assert time.monotonic() < deadline, prom.log_tail()
                    time.sleep(0.5)
                run = run_cli(["watch", "--prometheus", prom.url, "--retention", "60", "-d", "1", "--once", "--check",
                               "--json"], base_env(tmp_path), timeout=TIMEOUT_S)
                readings = PrometheusFleet(prom.url, window_s=1.0, retention_s=60.0).poll()
        finally:
            stop.set()
            thread.join()
    assert run.returncode == 1 and not run.timed_out, run.err  # z's alert: --check fails
    (record,) = records(run)
    rows = {(row["labels"]["job"], row["labels"]["instance"]): row for row in record["instances"]}
    assert set(rows) == {("x", "a"), ("y", "a"), ("z", "x/a")} and len({r["instance"] for r in rows.values()}) == 3
    assert [alert["kind"] for alert in rows[("z", "x/a")]["alerts"]] == ["not_working"]
    assert rows[("x", "a")]["alpha"] > 0.5 and rows[("y", "a")]["alpha"] > 0.5
    for row in rows.values():
        assert row["window_s"] > 0
        assert not [note for note in row["notes"] if note["id"].startswith("prometheus_")], row["notes"]
    assert len(readings) == 3
    for reading in readings:  # the history a real Prometheus answers: every point on the steps asked, kept
        said = [note.id for s in (*reading.history, reading.sample) if s is not None for note in s.notes]
        assert len(reading.history) >= 5 and not said, (len(reading.history), said)


async def test_the_fleet_screen_shows_three_rows_and_opens_the_one_chosen(server: HostileServer) -> None:
    FakePrometheus(server, [Instance("x", "a"), Instance("y", "a"),
                            Instance("z", "x/a", accepted_per_draft=0.0)], started())
    model = FleetModel(2.0, 120.0)
    app = FleetApp(PrometheusFleet(server.root, retention_s=120.0), model.fold, 2.0, lang="en")
    z = (("instance", "x/a"), ("job", "z"))
    async with app.run_test(size=(160, 30)) as pilot:
        screen = app.screen_stack[0]
        assert isinstance(screen, FleetScreen)
        await wait_until(pilot, lambda: screen.snapshots_shown >= 1)
        await pilot.pause()
        assert len(screen.shown) == 3 and len({row.key for row in screen.shown}) == 3
        assert len({row.instance for row in screen.shown}) == 3
        await wait_until(pilot, lambda: "z/x/a — speculation not working" in screen_text(app))  # its alert, logged
        for _ in range(len(screen.shown)):
            if screen.cursor_key == z:
                break
            await pilot.press("down")
        assert screen.cursor_key == z
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, InstanceScreen))
        opened = app.screen
        assert isinstance(opened, InstanceScreen) and opened.key == z
        assert [alert.kind.value for alert in opened.row.alerts] == ["not_working"]


def test_a_position_number_is_never_a_size(server: HostileServer, tmp_path: Path) -> None:
    fleet = [Instance("llama", f"gpu-{k}:8080", width=1, accepted_per_draft=0.5, positions=("1024",), bare=True)
             for k in range(400)]
    prometheus = FakePrometheus(server, fleet, started(700.0))
    run = watch(server, tmp_path, "--retention", "600", "--count", "1", "--json")
    assert not run.timed_out, f"did not end within {TIMEOUT_S:g} s"
    assert run.returncode == 0, run.err[-2000:]
    assert prometheus.sizes["matrix"] > 2_000_000  # the range answer: 400 instances × 3 series × 101 steps
    (record,) = records(run)
    rows = record["instances"]
    assert len(rows) == 400
    for row in rows:
        assert row["gamma"] is None  # its series go past what specview reads
        beyond = [note for note in row["notes"] if note["id"] == "positions_beyond"]
        assert [note["values"] for note in beyond] == [{"n": "1", "most": str(MAX_POSITIONS)}]  # said once
        assert row["drafts"] > 0 and row["window_s"] > 0


def test_a_position_series_past_the_cap_is_said_once_across_polls(server: HostileServer, tmp_path: Path) -> None:
    wide = Instance("llama", "wide:8080", width=40, accepted_per_draft=1.5,
                    positions=tuple(str(k) for k in range(40)))
    FakePrometheus(server, [wide], started())
    run = watch(server, tmp_path, "--count", "3", "--json", "-d", "0.3")
    assert run.returncode == 0 and not run.timed_out, run.err
    said = [note for record in records(run) for row in record["instances"] for note in row["notes"]
            if note["id"] == "positions_beyond"]
    assert [note["values"] for note in said] == [{"n": str(40 - MAX_POSITIONS), "most": str(MAX_POSITIONS)}]
    assert all(record["instances"][0]["gamma"] is None for record in records(run))


def test_a_history_point_outside_the_range_asked_is_dropped_and_counted(server: HostileServer,
                                                                         tmp_path: Path) -> None:
    prometheus = FakePrometheus(server, [Instance("j", "a:1")], started())
    drafts = 1  # the second series: its drafts counter, as a scrape three hours from now would read it
    prometheus.extra_points[drafts] = [(time.time() + 10_400.0, "1e6")]
    run = watch(server, tmp_path, "--count", "2", "--json", "-d", "0.5")
    assert run.returncode == 0 and not run.timed_out, run.err
    first, second = records(run)
    for record in (first, second):
        assert record["window_s"] >= 0
        assert all(row["window_s"] is None or row["window_s"] >= 0 for row in record["instances"])
    (dropped,) = [note for note in first["instances"][0]["notes"] if note["id"] == "prometheus_history_dropped"]
    assert dropped["values"] == {"n": "1"}
    assert not [note for note in second["instances"][0]["notes"] if note["id"] == "prometheus_history_dropped"]
