"""UI throughput benchmark (issue 2).

Feeds the live screen from the simulator as fast as it can produce for DURATION seconds,
headless, and reports: tokens/s absorbed by the pump, the lag between a round being produced
and being drawn (in pump frames), memory at the start and end of the run, `specview --help`
wall time, and time to first frame in a real pseudo-terminal.

    .venv/bin/python bench/ui_throughput.py [--duration 10] [--preset qwen3.6-mtp] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pty
import select
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


async def pump_throughput(preset: str, duration: float) -> dict[str, float]:
    from specview.backends.factory import make_backend
    from specview.backends.spec import RunSpec
    from specview.tui import live_screen
    from specview.tui.app import SpecviewApp
    from specview.widgets.token_view import TokenView

    spec = RunSpec(preset=preset, seed=1, speed=0.0)
    app = SpecviewApp(spec, make_backend(spec))
    produced_at: list[float] = []
    lags: list[float] = []
    frame = 1.0 / live_screen.PUMP_HZ
    original = live_screen.LiveScreen.pump

    def measured_pump(self: live_screen.LiveScreen) -> None:
        drawn_before = self.drawn_rounds
        original(self)
        now = time.monotonic()
        if self.drawn_rounds > drawn_before:
            # age of the oldest round drawn in this tick, in frames
            lags.append((now - produced_at[drawn_before]) / frame)

    live_screen.LiveScreen.pump = measured_pump  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            app.live.session.add_sink(lambda _r: produced_at.append(time.monotonic()))
            # The sink was added after start(); count rounds produced before it as "now".
            await pilot.pause(1.0)  # warm-up
            view = app.live.query_one(TokenView)
            missing = app.live.session.produced - len(produced_at)
            produced_at[:0] = [time.monotonic()] * max(0, missing)
            lags.clear()
            rss0, tokens0, t0 = rss_mib(), view.token_count, time.monotonic()
            rss_mid = 0.0
            while time.monotonic() - t0 < duration:
                await pilot.pause(0.25)
                if not rss_mid and time.monotonic() - t0 > duration / 2:
                    rss_mid = rss_mib()
            elapsed = time.monotonic() - t0
            # view.token_count is capped; count from the session instead
            tokens = app.live.session.metrics.tokens
            rounds = app.live.session.metrics.rounds
            backlog = app.live.session.produced - app.live.drawn_rounds
            rss1 = rss_mib()
            del tokens0
    finally:
        live_screen.LiveScreen.pump = original  # type: ignore[method-assign]
    lags.sort()
    return {
        "tokens_per_second": tokens / elapsed if elapsed else 0.0,
        "rounds_per_second": rounds / elapsed if elapsed else 0.0,
        "lag_frames_median": statistics.median(lags) if lags else 0.0,
        "lag_frames_p95": lags[int(0.95 * (len(lags) - 1))] if lags else 0.0,
        "backlog_rounds_at_end": float(backlog),
        "rss_mib_start": rss0,
        "rss_mib_mid": rss_mid,
        "rss_mib_end": rss1,
    }


def help_wall_time(repeats: int = 5) -> float:
    best = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "specview", "--help"], capture_output=True, check=True, cwd=ROOT)
        best.append(time.perf_counter() - t0)
    return statistics.median(best)


def first_frame_seconds(timeout: float = 15.0) -> float:
    """Start the real app in a pseudo-terminal; time until the stream panel is on screen."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(ROOT)
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "36"}
        os.execve(sys.executable, [sys.executable, "-m", "specview", "--seed", "1"], env)
    t0 = time.perf_counter()
    seen = b""
    result = float("nan")
    try:
        while time.perf_counter() - t0 < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    seen += os.read(fd, 65536)
                except OSError:
                    break
                if b"stream" in seen and b"this run" in seen:
                    result = time.perf_counter() - t0
                    break
        os.write(fd, b"q")
        time.sleep(0.5)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)
        os.waitpid(pid, 0)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--preset", default="qwen3.6-mtp")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(pump_throughput(args.preset, args.duration))
    result["help_seconds"] = help_wall_time()
    result["first_frame_seconds"] = first_frame_seconds()
    if args.json:
        print(json.dumps(result))
        return
    goals = {"tokens_per_second": ">= 5000", "lag_frames_p95": "<= 1", "help_seconds": "<= 0.3",
             "first_frame_seconds": "<= 1"}
    for key, value in result.items():
        print(f"{key:>24}  {value:10.3f}  {goals.get(key, '')}")


if __name__ == "__main__":
    main()
