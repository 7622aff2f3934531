"""The compare screen's summary: the leader of each column (the gauges it shows: core/gauges.py)."""

from __future__ import annotations

from collections.abc import Sequence

from specview.kernel.gauges import SUMMARY, Reading, gauges


def leaders(readings: Sequence[Reading]) -> dict[str, int | None]:
    """Index of the best run for each summary gauge, by its whole-run value (None when fewer
    than two runs have a value, when they all tie, or when the gauge has no better side)."""
    out: dict[str, int | None] = {}
    for spec in gauges(SUMMARY):
        present = [(v, i) for i, r in enumerate(readings) if (v := spec.value(r, windowed=False)) is not None]
        if spec.higher_is_better is None or len(present) < 2 or len({v for v, _ in present}) == 1:
            out[spec.key] = None
            continue
        best = max(present) if spec.higher_is_better else min(present)
        out[spec.key] = best[1]
    return out
