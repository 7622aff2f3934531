"""UI throughput benchmark (issue 2).

Feeds the live screen from the simulator as fast as it can produce for DURATION seconds,
headless, and reports: tokens/s absorbed by the pump, the lag between a round being produced
and being drawn (in pump frames), memory at the start and end of the run, `specview --help`
wall time, and time to first frame in a real pseudo-terminal.

    .venv/bin/python bench/ui_throughput.py [--duration 10] [--preset qwen3.6-mtp] [--json]
    .venv/bin/python bench/ui_throughput.py --panes 4     # the compare screen, four runs at once
    .venv/bin/python bench/ui_throughput.py --panes 4 --size 160x48 --rate 5000   # each pane fed 5,000 tok/s

Flat out, each tick takes all a pane's producer made (up to its buffer), so tokens a frame and
frames a second trade against each other. `--rate` feeds each pane at that many tokens a
second instead (a tick takes what the rate allows since the last one, the rest waits in the
buffer and holds the producer back): what the screen does with a stream that fast.
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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def paced_drain(rate: float) -> Callable[..., object]:
    """Session.drain taking at most what `rate` tokens a second allows since this session's last drain
    (tokens of the output, as the run's tokens/s counts them: a pane draws its rejected drafts too)."""
    from specview.kernel.events import TokenStatus
    from specview.kernel.session import Session

    REJECTED = TokenStatus.REJECTED
    original = Session.drain
    owed: dict[int, tuple[float, float]] = {}  # session id -> (tokens owed, when last drained)

    def drain(self: Session, limit: int | None = None, *, wake: bool = True) -> object:
        now = time.monotonic()
        tokens, last = owed.get(id(self), (0.0, now))
        tokens = min(tokens + rate * (now - last), rate)  # a pause owes at most a second's worth
        rounds = 0
        for item in list(self._buffer):  # the rounds whose tokens the rate covers
            # output tokens, as tokens/s counts them (the metrics' rule; cheap: this runs on the UI thread)
            statuses = [t.status for t in getattr(item, "tokens", ())]
            size = len(statuses) - statuses.count(REJECTED)
            if size > tokens:
                break
            tokens -= size
            rounds += 1
        owed[id(self)] = (tokens, now)
        return original(self, rounds if limit is None else min(limit, rounds), wake=wake)

    return drain


async def pump_throughput(presets: list[str], duration: float, size: tuple[int, int],
                          profile: str | None = None, rate: float | None = None) -> dict[str, float]:
    """Run the live screen (one preset) or the compare screen (several) flat out, headless;
    with `profile`, cProfile the UI thread over the measured window and write the stats there."""
    import cProfile

    from specview.backends.factory import make_backend
    from specview.features.live.app import SpecviewApp
    from specview.kernel.events import Round
    from specview.kernel.runspec import RunSpec
    from specview.tui.pump import Pumps

    specs = [RunSpec(preset=p, seed=1, speed=0.0) for p in presets]
    backends = [make_backend(s) for s in specs]
    compare = len(backends) > 1
    app = SpecviewApp(specs[0], backends[0], compare=backends if compare else None)
    # For every round: the pump tick current when it was produced; a round drawn in the
    # tick after that is one frame behind. Frame times are recorded to show the real rate.
    produced_at: list[list[int]] = [[] for _ in backends]
    lags: list[float] = []
    ticks: list[float] = []
    original = Pumps.tick

    def measured_tick(self: Pumps, *, wake: bool = True) -> bool:
        ticks.append(time.monotonic())
        before = self.drawn_rounds
        changed = original(self, wake=wake)
        for i, (b, a) in enumerate(zip(before, self.drawn_rounds, strict=True)):
            if a > b and b < len(produced_at[i]):
                lags.append(len(ticks) - produced_at[i][b])  # ticks behind, for the oldest round drawn now
        return changed

    Pumps.tick = measured_tick  # type: ignore[method-assign]
    from textual._compositor import Compositor

    draws: list[float] = []  # screen updates that drew something (a tick's content reaches the terminal here)
    render_update = Compositor.render_update

    def counted_update(self: Compositor, *args: object, **kwargs: object) -> object:
        update = render_update(self, *args, **kwargs)  # type: ignore[arg-type]
        if update is not None:
            draws.append(time.monotonic())
        return update

    Compositor.render_update = counted_update  # type: ignore[method-assign,assignment]
    from specview.kernel.session import Session

    unpaced = Session.drain
    if rate:
        Session.drain = paced_drain(rate)  # type: ignore[method-assign]
    try:
        async with app.run_test(size=size) as pilot:
            pumps: Pumps = app.screen_stack[0].pumps  # type: ignore[attr-defined]
            sessions = [pump.session for pump in pumps.pumps]
            for i, session in enumerate(sessions):
                session.add_sink(lambda r, i=i: produced_at[i].append(len(ticks)) if isinstance(r, Round) else None)
            await pilot.pause(1.0)  # warm-up
            from specview.tui.terminal.collector import freeze_startup

            freeze_startup()  # as in a real terminal (tui/app.py): start-up's objects leave the collector's walks
            for i, session in enumerate(sessions):  # rounds produced before the sink existed
                missing = session.produced - len(produced_at[i])
                produced_at[i][:0] = [len(ticks)] * max(0, missing)
            lags.clear()
            first_tick = len(ticks)
            tokens0 = [s.metrics.tokens for s in sessions]
            # the UI thread's CPU time (this coroutine runs on it): steadier than frames on a busy machine
            profiler = cProfile.Profile(time.thread_time) if profile else None  # CPU, not waits
            if profiler:
                profiler.enable()
            draws.clear()
            rss0, t0, rss_mid, cpu0, proc0 = rss_mib(), time.monotonic(), 0.0, time.thread_time(), time.process_time()
            while time.monotonic() - t0 < duration:
                await pilot.pause(0.25)
                if not rss_mid and time.monotonic() - t0 > duration / 2:
                    rss_mid = rss_mib()
            elapsed = time.monotonic() - t0
            cpu_s = time.thread_time() - cpu0
            proc_s = time.process_time() - proc0  # every thread of this process: the readers decode rounds
            if profiler:
                profiler.disable()
                profiler.dump_stats(profile)
            per_run = [(s.metrics.tokens - t) / elapsed for s, t in zip(sessions, tokens0, strict=True)]
            backlog = sum(s.produced for s in sessions) - sum(pumps.drawn_rounds)
            rss1 = rss_mib()
    finally:
        Pumps.tick = original  # type: ignore[method-assign]
        Compositor.render_update = render_update  # type: ignore[method-assign]
        Session.drain = unpaced  # type: ignore[method-assign]
    lags.sort()
    frames = [b - a for a, b in zip(ticks[first_tick:], ticks[first_tick + 1 :], strict=False)]
    frame_ms = 1000 * statistics.median(frames) if frames else 0.0
    drawn = sum(per_run) * elapsed
    return {
        "frame_ms_median": frame_ms,
        # frames drawn per second over the window (the pump ticks at 30 Hz, so a median interval of
        # 33.4 ms would read 29.9 "fps" for a run that missed no frame)
        "fps": len(frames) / sum(frames) if frames else 0.0,
        "draws_per_second": len(draws) / elapsed,  # screen updates with something new (≥ fps: numbers too)
        "ui_cpu_ms_per_frame": 1000 * cpu_s / max(len(ticks) - first_tick, 1),
        "ui_cpu_us_per_token": 1e6 * cpu_s / drawn if drawn else 0.0,
        "process_cpu_ms_per_frame": 1000 * proc_s / max(len(ticks) - first_tick, 1),
        "process_cpu_share": proc_s / elapsed,
        "load_avg_1m": os.getloadavg()[0],
        "runs": float(len(per_run)),
        "tokens_per_second": sum(per_run),
        "tokens_per_second_min_run": min(per_run),
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


FIRST_GAUGE = "acceptance α".encode()  # the side panel's first gauge label (its title names the span)


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
                if b"stream" in seen and FIRST_GAUGE in seen:  # the stream panel and the side panel's gauges
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
    parser.add_argument("--panes", type=int, default=1, help="compare screen with this many runs (2-4)")
    parser.add_argument("--size", default="120x36", help="terminal size, COLSxROWS (default 120x36)")
    parser.add_argument("--rate", type=float, help="feed each pane this many tokens a second (default: flat out)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", metavar="PATH", help="cProfile the UI thread's measured window into PATH")
    args = parser.parse_args()
    cycle = ["qwen3.6-mtp", "glm-5.2-mtp", "eagle3", "deepseek-v3-mtp"]
    presets = [args.preset] if args.panes <= 1 else cycle[: args.panes]
    cols, rows = (int(v) for v in args.size.split("x"))
    result = asyncio.run(pump_throughput(presets, args.duration, (cols, rows), args.profile, args.rate))
    if args.panes <= 1:
        result["help_seconds"] = help_wall_time()
        result["first_frame_seconds"] = first_frame_seconds()
    if args.json:
        print(json.dumps(result))
        return
    goals = {"tokens_per_second": ">= 5000", "tokens_per_second_min_run": ">= 2000 per run (compare)",
             "lag_frames_p95": "<= 1", "help_seconds": "<= 0.3", "first_frame_seconds": "<= 1"}
    if args.panes > 1:  # issue 22: four panes at >= 30 fps with >= 5,000 tok/s each (at 160x48)
        goals |= {"fps": ">= 29.5 (every tick of the 30 Hz pump)", "tokens_per_second_min_run": ">= 5000 per pane",
                  "draws_per_second": ">= 29.5 (what the eye gets: screen updates that drew)",
                  "ui_cpu_ms_per_frame": "<= 33 (30 fps on one core)",
                  "ui_cpu_us_per_token": "<= 50 (4 x 5,000 tok/s on one core)"}
    for key, value in result.items():
        print(f"{key:>24}  {value:10.3f}  {goals.get(key, '')}")


if __name__ == "__main__":
    main()
