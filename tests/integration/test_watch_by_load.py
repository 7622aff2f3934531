"""`specview watch --json` against a real llama-server with n-gram speculation, driven by one client
and then two at once: its `by_load` keeps α, yield, τ and tokens/s for each level of running
requests (llama-server's `llamacpp:requests_processing`), with their intervals, and no crossover
(watch has no plain baseline).

llama-server adds a request's speculative counters to /metrics only when the request ends, so the
test waits until each level has drafts, not for a time.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.llama_server import NGRAM_ARGS, RunningServer, llama_server, server_binary
from tests.support.processes import stop

pytestmark = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")

ROOT = Path(__file__).resolve().parents[2]
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
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        watcher = subprocess.Popen([sys.executable, "-m", "specview", "watch", "--url", server.url, "--json",
                                    "--interval", "0.25"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        lines: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=lambda: [lines.put(line) for line in watcher.stdout or ()], daemon=True)
        reader.start()
        try:
            lines.get(timeout=60)  # the watcher polls: its first record
            assert drive(server, 1, 3) == []
            assert drive(server, 2, 3) == []
            deadline = time.monotonic() + DEADLINE_S
            record: dict[str, Any] = {}
            while time.monotonic() < deadline and not {1, 2} <= levels_with_drafts(record).keys():
                record = json.loads(lines.get(timeout=max(0.1, deadline - time.monotonic())))
        finally:
            stop(watcher)
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
