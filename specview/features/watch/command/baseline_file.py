"""`watch --baseline FILE`: a load sweep's JSON (`specview sweep load --json`, or the copy it keeps) as
the crossover's baseline (model/crossover.py).

`sweep load` runs N concurrent clients against a plain server and a speculating one; its "off"
side at each concurrency is plain decoding's tokens/s per request, measured with N requests
running. Each concurrency becomes a level, basis `SWEEP`; the spread is the repeats' standard
error of the aggregate tokens/s, scaled to per request (None below two repeats: within noise).
A level is a concurrency of the sweep, so the running requests only match where the server had
a slot for every client.

The file is outside input: a regular file only, at most MAX_FILE_BYTES, every field bounded by
`LoadSweep.from_dict`; anything else is one line naming the file (exit 2).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING

from specview.features.watch.model.crossover import SWEEP, Baseline, LevelRate
from specview.kernel.errors import CliError

if TYPE_CHECKING:
    from specview.features.watch.model.alert_rules import AlertRules

MAX_FILE_BYTES = 2**20  # a sweep of 64 levels is a few kB


def is_sweep_file(value: str) -> bool:
    """Whether `--baseline` names a file (a sweep), not a server or a fleet instance."""
    return "://" not in value and Path(value).is_file()


def sweep_baseline(path: str) -> Baseline:
    """The load sweep in `path` as a baseline (CliError naming the file when it is not one)."""
    from specview.boundary.jsonio import loads
    from specview.boundary.safe_files import open_regular
    from specview.boundary.text import sanitize
    from specview.features.sweep.model import LoadSweep
    from specview.kernel.spread import Moments

    try:
        with open_regular(path) as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise ValueError(f"larger than {MAX_FILE_BYTES} bytes")
        sweep = LoadSweep.from_dict(loads(raw))
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CliError("watcherr.command.baseline_file", path=sanitize(path, 300, one_line=True),
                       reason=sanitize(reason, 300, one_line=True)) from None
    levels = []
    for point in sorted(sweep.points, key=lambda p: p.concurrency):
        moments = Moments()
        for sample in point.off_samples:
            moments.add(sample)
        se = moments.standard_error
        scale = point.off_per_request / point.off_tokens_per_second if point.off_tokens_per_second > 0 else None
        spread = se * scale if se is not None and scale is not None and math.isfinite(se) else None
        if point.off_per_request > 0:
            levels.append(LevelRate(point.concurrency, point.off_per_request, spread))
    return Baseline(SWEEP, Path(path).name, tuple(levels))


def baseline_asked(args: argparse.Namespace, rules: AlertRules) -> str | Baseline | None:
    """What `--baseline` and `--baseline-tps` ask for: a server or fleet instance to measure (its
    name), a sweep's file or a given number (a fixed Baseline), or nothing; the server wins."""
    from specview.features.watch.model.crossover import given_baseline

    if args.baseline:
        return sweep_baseline(args.baseline) if is_sweep_file(args.baseline) else str(args.baseline)
    tps = rules.baseline_tokens_per_s
    return given_baseline([(tps, None)]) if tps is not None else None
