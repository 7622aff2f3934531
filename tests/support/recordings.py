"""Making recordings for tests: a simulator run recorded in-process, and its rounds read back."""

from __future__ import annotations

from pathlib import Path

from specview.features.live.bench_command import bench_one
from specview.features.record.recording import read_recording
from specview.kernel.events import Round
from specview.kernel.runspec import RunSpec


def record_sim(path: Path, rounds: int, *, preset: str = "qwen3.6-mtp", seed: int = 5) -> dict[str, object]:
    """Record a sim run in-process (what `bench --record` does) and return its stats."""
    spec = RunSpec(preset=preset, seed=seed, speed=0.0, max_rounds=rounds)
    return bench_one(spec, rounds, str(path)).stats


def recorded_rounds(path: Path) -> list[Round]:
    return [item for item in read_recording(path) if isinstance(item, Round)]
