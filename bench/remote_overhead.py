"""How much does specview's processing slow down the stream a client absorbs from llama-server?

One llama-server (Gemma 3 270M, n-gram drafting, 127.0.0.1) and, alternating in the same run:
  bare     — the same streaming request, events decoded and dropped (Connection.stream: httpx, the SSE reader, json);
  specview — OpenAIBackend through Session.run_headless (dialect rebuild + metrics fold).
Tokens/s is measured from the first to the last event of each stream. The client-side cost is
also timed directly: the captured events are replayed through the dialect and the metrics fold,
and that time is compared with the stream's own duration. Everything is bounded (reps, tokens,
a wall-clock cap) and the server is killed at the end.

Usage: .venv/bin/python bench/remote_overhead.py [--reps 5] [--max-tokens 128] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specview.backends.remote.backend import OpenAIBackend  # noqa: E402
from specview.backends.remote.client import Connection  # noqa: E402
from specview.backends.remote.dialect import RequestSettings  # noqa: E402
from specview.backends.remote.kinds.llama_server import LlamaServerDialect  # noqa: E402
from specview.backends.remote.options import RemoteOptions  # noqa: E402
from specview.kernel.metrics import Metrics  # noqa: E402
from specview.kernel.runspec import RunSpec  # noqa: E402
from specview.kernel.session import Session  # noqa: E402
from tests.support.llama_server import NGRAM_ARGS, llama_server  # noqa: E402

PROMPT = "Count from 1 to 60, separated by commas: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,"
WALL_CAP_S = 300.0
LIMIT = 5.0  # percent


def tokens_of(events: list[tuple[dict[str, Any], float]]) -> int:
    return max((int(e["timings"]["predicted_n"]) for e, _ in events if "timings" in e), default=0)


def rate(tokens: int, times: list[float]) -> float:
    span = times[-1] - times[0] if len(times) > 1 else 0.0
    return (tokens - 1) / span if span > 0 else 0.0


def bare_run(url: str, max_tokens: int) -> tuple[float, list[tuple[dict[str, Any], float]]]:
    settings = RequestSettings("gemma", PROMPT, True, 0.0, 0, max_tokens, None)
    path, body = LlamaServerDialect(settings).request()
    conn = Connection(url, None, None)
    try:
        events = list(conn.stream(f"{conn.root}{path}", body, threading.Event(), read_timeout=30.0,
                                  max_events=4 * max_tokens + 64, max_seconds=120.0, model=None))
    finally:
        conn.close()
    return rate(tokens_of(events), [t for _, t in events]), events


def specview_run(url: str, max_tokens: int) -> float:
    backend = OpenAIBackend(RunSpec(prompt=PROMPT, temperature=0.0, max_tokens=max_tokens,
                                    options=RemoteOptions(url=url, raw=True)),
                            read_timeout=30.0)
    times: list[float] = []
    last_n = [0]

    def tee(event: dict[str, Any]) -> None:
        times.append(time.monotonic())
        if "timings" in event:
            last_n[0] = int(event["timings"]["predicted_n"])

    backend.event_hook = tee
    for _ in Session(backend).run_headless():
        pass
    return rate(last_n[0], times)


def processing_cost(events: list[tuple[dict[str, Any], float]], max_tokens: int) -> float:
    """Seconds specview spends on these events (dialect + metrics fold), best of 5 replays."""
    settings = RequestSettings("gemma", PROMPT, True, 0.0, 0, max_tokens, None)
    best = float("inf")
    for _ in range(5):
        dialect, metrics = LlamaServerDialect(settings), Metrics()
        started = time.perf_counter()
        for event, t in events:
            for rnd in dialect.feed(event, t):
                metrics.add(rnd)
        for rnd in dialect.finish(events[-1][1]):
            metrics.add(rnd)
        metrics.snapshot()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    reps, max_tokens = max(1, min(args.reps, 20)), max(16, min(args.max_tokens, 512))
    started = time.monotonic()
    bare: list[float] = []
    full: list[float] = []
    costs: list[float] = []
    per_token_us: list[float] = []
    with llama_server(NGRAM_ARGS) as server:
        bare_run(server.url, max_tokens)  # warm-up: prompt cache, page cache
        for _ in range(reps):
            if time.monotonic() - started > WALL_CAP_S:
                break
            tps, events = bare_run(server.url, max_tokens)
            bare.append(tps)
            full.append(specview_run(server.url, max_tokens))
            stream_s = events[-1][1] - events[0][1]
            cost_s = processing_cost(events, max_tokens)
            costs.append(100.0 * cost_s / stream_s if stream_s > 0 else 0.0)
            per_token_us.append(1e6 * cost_s / max(1, tokens_of(events)))
    bare_tps, full_tps = statistics.median(bare), statistics.median(full)
    result = {
        "reps": len(bare),
        "max_tokens": max_tokens,
        "bare_tokens_per_second": round(bare_tps, 2),
        "specview_tokens_per_second": round(full_tps, 2),
        "throughput_overhead_percent": round(100.0 * (bare_tps - full_tps) / bare_tps, 2),
        "processing_cost_percent_of_stream": round(statistics.median(costs), 3),
        "processing_us_per_token": round(statistics.median(per_token_us), 1),
        "bare_runs": [round(x, 2) for x in bare],
        "specview_runs": [round(x, 2) for x in full],
        "limit_percent": LIMIT,
    }
    passed = result["throughput_overhead_percent"] <= LIMIT and result["processing_cost_percent_of_stream"] <= LIMIT
    result["passed"] = passed
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>36}  {value}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
