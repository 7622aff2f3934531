"""A fleet read through a real Prometheus, one of its instances a plain server named by `--baseline`:
each other instance's load table is compared with that instance's own tokens/s per request at the
same level, basis "measured", the source its `instance` label. The servers are llama-server
look-alikes (real HTTP servers whose counters the test moves), the plain one making tokens with
no drafts: two requests running on each, the speculating one 3× as fast per request."""

from __future__ import annotations

import threading
from contextlib import ExitStack
from functools import partial
from typing import Any

import pytest

from tests.support.exporter import Exporter, exporters
from tests.support.prometheus import prometheus, prometheus_binary
from tests.support.waiting import wait_until
from tests.support.watcher import Watcher

pytestmark = pytest.mark.skipif(prometheus_binary() is None, reason="prometheus not installed (make deps-debian)")


def spec_crossover(watcher: Watcher) -> dict[str, Any] | None:
    """The crossover of the instance that has one (the plain one has none), from the last record."""
    for row in watcher.last_record().get("instances", []):
        crossover = (row.get("by_load") or {}).get("crossover")
        if crossover is not None and crossover["levels"]:
            return dict(crossover)
    return None


def compared_at(level: int, watcher: Watcher) -> bool:
    found = spec_crossover(watcher)
    return found is not None and any(c["running"] == level for c in found["levels"])


def test_the_fleets_plain_instance_is_every_other_ones_measured_baseline_through_prometheus() -> None:
    stop = threading.Event()
    with exporters(2) as (spec, plain), ExitStack() as stack:
        def busy(server: Exporter, tokens: int, drafts: int) -> None:
            while not stop.wait(0.1):
                server.advance(drafts, (3, 2, 1) if drafts else (), tokens=tokens, running=2)

        threads = [threading.Thread(target=busy, args=(spec, 30, 4), daemon=True),
                   threading.Thread(target=busy, args=(plain, 10, 0), daemon=True)]
        for t in threads:
            t.start()
            stack.callback(t.join)
        stack.callback(stop.set)
        plain_instance = plain.root.removeprefix("http://")
        prom = stack.enter_context(prometheus([spec.root.removeprefix("http://"), plain_instance], scrape_s=1.0))
        watcher = Watcher("--prometheus", prom.url, "--baseline", plain_instance, "--json", "-d", "1",
                          "--retention", "600")
        stack.callback(watcher.close)
        wait_until(partial(compared_at, 2, watcher), 60, "level 2 compared")
        found = spec_crossover(watcher)
    assert found is not None and found["basis"] == "measured" and found["source"] == plain_instance, found
    (two,) = [c for c in found["levels"] if c["running"] == 2]
    assert two["vs_plain"] == pytest.approx(3.0, rel=0.25), two  # 30 against 10 tokens a tick
    assert found["state"] == "not_reached" and found["running"] is None  # faster at every level compared
