"""`specview watch --json` against a real llama-server with n-gram speculation, driven by one client
and then two at once: its `by_load` keeps α, yield, τ and tokens/s for each level of running
requests (llama-server's `llamacpp:requests_processing`), with their intervals, and no crossover
without a baseline. With a plain llama-server of the same model named by `--baseline`, loaded
alike, the one-server watch and the fleet both compare each level with the plain server's own
tokens/s per request and say the crossover with its basis, "measured".

llama-server adds a request's speculative counters to /metrics only when the request ends, so the
test waits until each level has drafts, not for a time.
"""

from __future__ import annotations

import threading
from contextlib import ExitStack
from functools import partial
from typing import Any

import httpx
import pytest

from tests.support.llama_server import NGRAM_ARGS, RunningServer, llama_server, server_binary
from tests.support.waiting import wait_until
from tests.support.watcher import Watcher, busy_clients

pytestmark = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")

REPEATING = "Roses are red, violets are blue, the sea is deep and the sky is wide. " * 4 + "Roses are"
DEADLINE_S = 240.0


def client(server: RunningServer, requests: int, errors: list[str]) -> None:
    """One client: `requests` completions one after another (n-gram drafts from the repeated text)."""
    with httpx.Client(timeout=120.0) as http:
        for _ in range(requests):
            try:
                http.post(f"{server.url}/completions", json={"prompt": REPEATING, "max_tokens": 48,
                                                             "temperature": 0.0}).raise_for_status()
            except httpx.HTTPError as exc:
                errors.append(repr(exc))


def drive(server: RunningServer, clients: int, requests: int) -> list[str]:
    """`clients` at once, each `requests` completions; the errors they met."""
    errors: list[str] = []
    threads = [threading.Thread(target=client, args=(server, requests, errors)) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def levels_with_drafts(record: dict[str, Any]) -> dict[int, dict[str, Any]]:
    by_load = record.get("by_load") or {"levels": []}
    return {row["running"]: row for row in by_load["levels"] if row["drafted"] > 0}


def test_watch_json_keeps_acceptance_per_level_of_running_requests() -> None:
    with llama_server(NGRAM_ARGS, parallel=2) as server:
        watcher = Watcher("--url", server.url, "--json", "--interval", "0.25")
        try:
            wait_until(lambda: bool(watcher.drain()), 60, "the watcher's first record")
            assert drive(server, 1, 3) == []
            assert drive(server, 2, 3) == []
            wait_until(lambda: {1, 2} <= levels_with_drafts(watcher.last_record()).keys(), DEADLINE_S,
                       "levels 1 and 2 with drafts")
            record = watcher.last_record()
        finally:
            watcher.close()
    by_load = record["by_load"]
    assert by_load["gauge"] == "llamacpp:requests_processing"
    assert by_load["baseline"] is None and by_load["crossover"] is None
    levels = levels_with_drafts(record)
    assert {1, 2} <= levels.keys(), record
    for row in levels.values():
        low, high = row["alpha_interval"]
        assert 0.0 <= low <= row["alpha"] <= high <= 1.0
        low, high = row["yield_interval"]
        assert 0.0 <= low <= row["yield"] <= high <= 1.0 and row["yield"] <= row["alpha"]
        assert row["tau"] >= 1.0 and row["tokens_per_s"] > 0 and row["windows"] >= 1
        assert row["tokens_per_s_per_request"] == pytest.approx(row["tokens_per_s"] / row["running"], abs=0.01)


def plain_and_spec_levels(record: dict[str, Any]) -> set[int]:
    """The levels a record's crossover compared (a fleet record: the speculating instance's)."""
    for row in record.get("instances", [record]):
        crossover = (row.get("by_load") or {}).get("crossover")
        if crossover is not None:
            return {c["running"] for c in crossover["levels"]}
    return set()


def compared(n: int, *watchers: Watcher) -> bool:
    return all(n in plain_and_spec_levels(w.last_record()) for w in watchers)


def test_a_plain_server_named_by_baseline_gives_the_crossover_its_measured_basis() -> None:
    with llama_server(NGRAM_ARGS, parallel=2) as spec, llama_server((), parallel=2) as plain, ExitStack() as stack:
        direct = Watcher("--url", spec.root, "--baseline", plain.root, "--json", "-d", "0.25")
        fleet = Watcher("--url", spec.root, "--url", plain.root, "--baseline", plain.root, "--json", "-d", "0.5")
        words = Watcher("--url", spec.root, "--baseline", plain.root, "-d", "0.25", "--lang", "en")
        for w in (direct, fleet, words):
            stack.callback(w.close)
        wait_until(lambda: bool(direct.drain() and fleet.drain() and words.drain()), 60, "a watcher printed nothing")
        for n in (1, 2):  # the same load on both at once: the machine's other work slows both alike
            with ExitStack() as load:
                for server in (spec, plain):
                    load.enter_context(busy_clients(f"{server.url}/completions", body, n))
                wait_until(partial(compared, n, direct, fleet), DEADLINE_S, f"level {n} compared")
        said = words.interrupt()
    crossover = direct.last_record()["by_load"]["crossover"]
    assert crossover["basis"] == "measured" and crossover["source"] == plain.root, crossover
    assert crossover["state"] in ("found", "not_reached") and {1, 2} <= plain_and_spec_levels(direct.last_record())
    (spec_row,) = [r for r in fleet.last_record()["instances"] if r["by_load"]["crossover"] is not None]
    assert spec_row["by_load"]["crossover"]["basis"] == "measured"
    assert spec_row["by_load"]["crossover"]["source"] == plain.root.removeprefix("http://") or \
        spec_row["by_load"]["crossover"]["source"].endswith(plain.root.removeprefix("http://"))
    print("\n" + said[said.index("by running requests"):])
    assert f"baseline measured: {plain.root}" in said and "vs plain" in said, said


def body(_client: int, _k: int) -> dict[str, Any]:
    return {"prompt": REPEATING, "max_tokens": 48, "temperature": 0.0}
