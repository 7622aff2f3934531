"""The last `specview sweep gamma|load` result, kept so the Learn screens can draw it on their axes.

Each sweep replaces `<platformdirs state dir>/sweeps/<kind>.json` (the shape of `to_dict()`).
Saving is a convenience: a folder that cannot be written loses the copy, never the sweep. Reading
treats the file as outside input: size-capped, a regular file only, every field bounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from specview.boundary.bounds import mapping, optional_real, real, sequence
from specview.features.sweep.model import MAX_LEVELS, MAX_RATE, SCHEMA, LoadSweep
from specview.kernel.theory import MAX_GAMMA

MAX_FILE_BYTES = 2**20  # a sweep of MAX_LEVELS points is a few kB


def sweep_path(kind: str) -> Path:
    """Where the last sweep of this kind ("gamma" or "load") is kept."""
    from platformdirs import user_state_path

    return user_state_path("specview") / "sweeps" / f"{kind}.json"


def save_sweep(kind: str, text: str) -> Path | None:
    """Keep `text` (the sweep's JSON) as the last sweep of `kind`; None when the folder is not writable."""
    from specview.boundary.safe_files import write_new

    path = sweep_path(kind)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_new(path, text, replace=True)
    except OSError:
        return None
    return path


def _read(kind: str) -> Any:
    """The saved JSON of `kind`, None when there is none; ValueError naming the file when unreadable."""
    from specview.boundary.jsonio import loads
    from specview.boundary.safe_files import open_regular

    path = sweep_path(kind)
    try:
        with open_regular(path) as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ValueError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
    try:
        return loads(raw)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def saved_load() -> LoadSweep | None:
    """The last load sweep, None if none was saved; ValueError when the file is not one."""
    data = _read("load")
    return None if data is None else LoadSweep.from_dict(data)


@dataclass(frozen=True, slots=True)
class GammaMeasured:
    """One γ of a saved γ sweep: measured speedup over plain, and what theory predicted from the sweep."""

    gamma: int
    speedup: float | None
    predicted: float | None
    best: bool = False  # the sweep's ★: faster than every other run beyond noise (kernel/verdict.py)


def saved_gamma() -> tuple[GammaMeasured, ...] | None:
    """The drafting γ points of the last γ sweep (plain left out), None if none was saved."""
    data = _read("gamma")
    if data is None:
        return None
    data = mapping(data, "sweep")
    if data.get("schema") != SCHEMA or data.get("kind") != "gamma":
        raise ValueError("not a specview γ sweep")
    out = []
    for i, item in enumerate(sequence(data.get("rows"), "rows", MAX_LEVELS)):
        row = mapping(item, f"rows[{i}]")
        gamma = int(real(row.get("gamma"), f"rows[{i}].gamma", 0, MAX_GAMMA))
        if gamma > 0:
            out.append(GammaMeasured(gamma, optional_real(row.get("speedup"), f"rows[{i}].speedup", 0.0, MAX_RATE),
                                     optional_real(row.get("predicted_speedup"), f"rows[{i}].predicted_speedup",
                                                   0.0, MAX_RATE), row.get("best") is True))
    return tuple(sorted(out, key=lambda p: p.gamma))
