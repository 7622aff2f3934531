"""The compare screen's feeding side, per token (issue 22): what the simulator, the child's pipe
and the UI thread's drain each cost, measured in CPU time so a busy machine moves it little.

    .venv/bin/python bench/feed_cost.py [--rounds 20000] [--repeats 5] [--json]

- sim: tokens the simulator makes per CPU-second, flat out in this process (each preset the
  four-pane benchmark uses, speed 0);
- pickle: µs per token for the child to encode its batches of rounds (what it writes to the pipe);
- ui: µs per token for the UI thread to decode those batches and drain them through a Session
  (unpickle + drain + fold into the metrics), the part of a frame that is not drawing.

Each figure is the best of `--repeats` runs (the least disturbed by other processes).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PRESETS = ("qwen3.6-mtp", "glm-5.2-mtp", "eagle3", "deepseek-v3-mtp")  # bench/ui_throughput.py --panes 4


def sim_items(preset: str, rounds: int) -> list[object]:
    """What the simulator yields for `rounds` rounds of `preset` (seed 1, flat out)."""
    from specview.backends.factory import make_backend
    from specview.kernel.runspec import RunSpec

    backend = make_backend(RunSpec(preset=preset, seed=1, speed=0.0, max_rounds=rounds))
    return list(backend.rounds(threading.Event()))


def tokens_of(items: list[object]) -> int:
    from specview.kernel.events import Round

    return sum(r.emitted for r in items if isinstance(r, Round))  # as the UI benchmark counts them


def sim_rate(preset: str, rounds: int, repeats: int) -> float:
    """Tokens (emitted) per CPU-second of the simulator."""
    best = float("inf")
    tokens = 0
    for _ in range(repeats):
        t0 = time.process_time()
        items = sim_items(preset, rounds)
        best = min(best, time.process_time() - t0)
        tokens = tokens_of(items)
    return tokens / best


def batches(items: list[object]) -> Iterator[bytes]:
    """The child's messages for `items`, as `_produce` sends them (BATCH_ROUNDS rounds each)."""
    from specview.backends import process

    encode = getattr(process, "encode", None)
    for start in range(0, len(items), process.BATCH_ROUNDS):
        batch = items[start:start + process.BATCH_ROUNDS]
        yield encode("rounds", batch) if encode is not None else process.pickle.dumps(
            ("rounds", batch), protocol=process.pickle.HIGHEST_PROTOCOL)


def pickle_cost(items: list[object], repeats: int) -> tuple[float, int]:
    """µs per token to encode, and the bytes per token on the pipe."""
    best = float("inf")
    size = 0
    for _ in range(repeats):
        t0 = time.thread_time()
        messages = list(batches(items))
        best = min(best, time.thread_time() - t0)
        size = sum(len(m) for m in messages)
    n = tokens_of(items)
    return 1e6 * best / n, size // n


class _Listed:
    """A backend that yields prepared items (the session's drain is what is measured)."""

    def __init__(self, items: list[object]) -> None:
        from specview.backends.sim.backend import SimBackend  # noqa: F401 - numpy imported before timing
        from specview.kernel.backend import BackendInfo, BackendKind

        self.items = items
        self.info = BackendInfo(backend=BackendKind.SIM, label="bench", gamma=None, temperature=1.0, virtual_clock=True)

    def rounds(self, stop: threading.Event) -> Iterator[object]:
        yield from self.items

    def close(self) -> None:
        pass


def ui_cost(items: list[object], repeats: int) -> dict[str, float]:
    """µs per token on the UI thread: decode the child's batches, then drain them through a
    Session the way a pump tick does (a drain per tick of about one pipe message per pane)."""
    from specview.backends import process
    from specview.kernel.session import Session

    messages = list(batches(items))
    decode = getattr(process, "decode", None)
    n = tokens_of(items)
    best_decode = best_drain = float("inf")
    for _ in range(repeats):
        t0 = time.thread_time()
        decoded: list[object] = []
        for m in messages:
            if decode is not None:
                decoded.extend(decode(m)[1])
            else:
                decoded.extend(process.pickle.loads(m)[1])
        t1 = time.thread_time()
        session = Session(_Listed(decoded), buffer_tokens=10**9)  # type: ignore[arg-type]
        session._produce()  # fills the buffer on this thread (not timed)
        t2 = time.thread_time()
        while session.drain(limit=process.BATCH_ROUNDS).rounds:
            pass
        t3 = time.thread_time()
        best_decode = min(best_decode, t1 - t0)
        best_drain = min(best_drain, t3 - t2)
    return {"decode_us_per_token": 1e6 * best_decode / n, "drain_us_per_token": 1e6 * best_drain / n,
            "ui_us_per_token": 1e6 * (best_decode + best_drain) / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, float] = {}
    for preset in PRESETS:
        result[f"sim_tokens_per_cpu_s[{preset}]"] = sim_rate(preset, args.rounds, args.repeats)
    items = [i for p in PRESETS for i in sim_items(p, args.rounds // len(PRESETS))]
    per_token, size = pickle_cost(items, args.repeats)
    result["pickle_us_per_token"] = per_token
    result["pipe_bytes_per_token"] = float(size)
    result |= ui_cost(items, args.repeats)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>40}  {value:12.2f}")


if __name__ == "__main__":
    main()
