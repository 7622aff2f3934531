"""The compare screen's summary: one row per run, and the leader of each column."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from specview.core.metrics import MetricsSnapshot
from specview.core.overlay import overlay

# column -> True when higher is better
COLUMNS: dict[str, bool] = {
    "alpha": True,
    "tau": True,
    "expected_tau": True,
    "speedup": True,
    "tokens_per_second": True,
    "draft_cost": False,
}


@dataclass(frozen=True, slots=True)
class SummaryRow:
    label: str
    values: dict[str, float | None]


def summary_row(label: str, snap: MetricsSnapshot) -> SummaryRow:
    """A run's own metrics, as the table shows them (speedup: measured, else theory)."""
    over = overlay(snap)
    speed = over.speedup_shown
    return SummaryRow(
        label,
        {
            "alpha": snap.acceptance_rate,
            "tau": snap.tau,
            "expected_tau": over.expected_tau,
            "speedup": speed,
            "tokens_per_second": snap.tokens_per_second,
            "draft_cost": snap.draft_cost,
        },
    )


def leaders(rows: Sequence[SummaryRow]) -> dict[str, int | None]:
    """Index of the best row in each column (None when no row has a value or all tie)."""
    out: dict[str, int | None] = {}
    for column, higher in COLUMNS.items():
        present = [(row.values[column], i) for i, row in enumerate(rows) if row.values[column] is not None]
        if len(present) < 2 or len({v for v, _ in present}) == 1:
            out[column] = None
            continue
        best = max(present) if higher else min(present)
        out[column] = best[1]
    return out
