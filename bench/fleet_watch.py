"""Scale of `watch --prometheus`: a real Prometheus scraping 100 exporters, one refresh timed.

One child process serves recorded /metrics texts (bench/recorded/: a real llama-server's, and a
real CPU vLLM's when recorded) on `--instances` ports, the counters growing with time at a rate
and an acceptance of each instance's own; a real Prometheus scrapes them every second. specview's
`PrometheusFleet` then polls every `--interval` s for `--seconds`: each refresh (the query, its
decoding, folding every instance) is timed, and specview's CPU time over the whole loop is divided
by its wall time (the share of one core). The goals (issue 20): a refresh, queries and drawing,
p95 ≤ 250 ms; CPU ≤ 10 % of a core at a 2 s interval.

Drawing is the fleet screen's: `--draw MODULE:FUNCTION` names a function that takes each poll's
readings (a tuple of InstanceReading: fold them into a FleetSnapshot and draw it); its time is
counted in each refresh. Without it only the source is timed.

Usage: .venv/bin/python bench/fleet_watch.py [--instances 100] [--seconds 40] [--interval 2]
       [--draw MODULE:FUNCTION] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import math
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specview.features.watch.model.fleet import InstanceReading, State  # noqa: E402
from specview.features.watch.source.prometheus import PrometheusFleet  # noqa: E402
from tests.support.prometheus import prometheus  # noqa: E402

RECORDED = ROOT / "bench" / "recorded"
Draw = Callable[[tuple[InstanceReading, ...]], object]


def templates() -> list[list[tuple[str, float, bool, bool]]]:
    """Each recorded text as lines: (text before the value, value, is a counter, is an accepted count)."""
    found = []
    for path in sorted(RECORDED.glob("*.metrics")):
        lines = []
        for line in path.read_text().splitlines():
            if line.startswith("#") or not line.strip():
                lines.append((line, math.nan, False, False))
                continue
            head, _, value = line.rpartition(" ")
            name = head.split("{", 1)[0]
            counter = name.endswith(("_total", "_count", "_sum", "_bucket"))
            lines.append((head + " ", float(value), counter, "accepted" in name))
        found.append(lines)
    return found


def render(lines: list[tuple[str, float, bool, bool]], grown: float, acceptance: float) -> bytes:
    out = []
    for head, value, counter, accepted in lines:
        if math.isnan(value):
            out.append(head)
        elif counter:
            out.append(f"{head}{int(value * grown * (acceptance if accepted else 1.0))}")
        else:
            out.append(f"{head}{value:g}")
    return ("\n".join(out) + "\n").encode()


async def serve(instances: int) -> None:
    """The exporters: one port each, their ports printed as one JSON line."""
    kinds = templates()
    started = time.monotonic()
    ports: list[int] = []

    def handler(k: int) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Any]:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while await reader.readuntil(b"\r\n\r\n"):
                    grown = 1.0 + (time.monotonic() - started) * (0.05 + 0.001 * k)
                    body = render(kinds[k % len(kinds)], grown, 0.5 + 0.5 * (k % 10) / 10)
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
                                 b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
                    await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()
        return answer

    servers = []
    for k in range(instances):
        server = await asyncio.start_server(handler(k), "127.0.0.1", 0)
        servers.append(server)
        ports.append(server.sockets[0].getsockname()[1])
    print(json.dumps(ports), flush=True)
    await asyncio.Event().wait()  # until the parent stops this process


def load_draw(name: str | None) -> Draw | None:
    if name is None:
        return None
    module, _, function = name.partition(":")
    draw: Draw = getattr(importlib.import_module(module), function)
    return draw


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def measure(url: str, seconds: float, interval: float, draw: Draw | None) -> dict[str, Any]:
    fleet = PrometheusFleet(url, window_s=interval, retention_s=600)
    t0 = time.perf_counter()
    readings = fleet.poll()  # with the history's range query
    first_s = time.perf_counter() - t0
    if draw is not None:
        draw(readings)  # the screen starts (and draws the history) outside the timed refreshes
    refresh: list[float] = []
    refresh_cpu: list[float] = []  # specview's own CPU time in each refresh (the rest is waiting on Prometheus)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    next_at = wall0
    while time.perf_counter() - wall0 < seconds:
        next_at += interval
        t0, c0 = time.perf_counter(), time.process_time()
        readings = fleet.poll()
        if draw is not None:
            draw(readings)
        refresh.append(time.perf_counter() - t0)
        refresh_cpu.append(time.process_time() - c0)
        time.sleep(max(0.0, next_at - time.perf_counter()))
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    fleet.close()
    ordered = sorted(refresh)
    return {
        "instances": len(readings),
        "up": sum(r.state is State.UP for r in readings),
        "with_samples": sum(r.sample is not None for r in readings),
        "engines": sorted({r.engine or "?" for r in readings}),
        "first_poll_s": round(first_s, 4),
        "refreshes": len(refresh),
        "refresh_p50_ms": round(1000 * statistics.median(ordered), 1),
        "refresh_p95_ms": round(1000 * p95(refresh), 1),
        "refresh_max_ms": round(1000 * ordered[-1], 1),
        "refresh_cpu_p95_ms": round(1000 * p95(refresh_cpu), 1),
        "cpu_share_of_a_core": round(cpu / wall, 4),
        "interval_s": interval,
        "drawing_timed": draw is not None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--draw", help="MODULE:FUNCTION taking each poll's readings (the fleet screen's drawing)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # the exporters' process
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.instances))
        return
    draw = load_draw(args.draw)
    exporters = subprocess.Popen([sys.executable, __file__, "--serve", "--instances", str(args.instances)],
                                 stdout=subprocess.PIPE, text=True)
    try:
        assert exporters.stdout is not None
        ports = json.loads(exporters.stdout.readline())
        targets = [f"127.0.0.1:{p}" for p in ports]
        with prometheus(targets, scrape_s=1.0) as prom:
            time.sleep(3 * 1.0)  # a few scrapes of history before specview starts
            out = measure(prom.url, args.seconds, args.interval, draw)
    finally:
        exporters.terminate()
        exporters.wait(10)
    out["recorded"] = [p.name for p in sorted(RECORDED.glob("*.metrics"))]
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:>22}: {value}")


if __name__ == "__main__":
    main()
