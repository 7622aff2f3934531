"""Depth that varies, in words: one line per drafter where a run's rounds name more than one.

Pure (no widgets). Drafter names come from outside where a recording or a server gave them:
`Round.from_dict` sanitized and bounded them, and `sanitize` makes them safe again here, where
they meet the screen.
"""

from __future__ import annotations

from specview.boundary.text import number, sanitize
from specview.kernel.drafters import MAX_DRAFTER_NAME
from specview.kernel.metrics_snapshot import MetricsSnapshot
from specview.texts.catalog import fill


def drafter_lines(snap: MetricsSnapshot, lang: str) -> str:
    """α and τ per drafter, one line each; empty unless at least two drafters drafted."""
    named = [d for d in snap.drafters if d.name]
    if len(named) < 2:
        return ""
    return "\n".join(fill("depth.drafter", lang, name=sanitize(d.name, MAX_DRAFTER_NAME, one_line=True),
                          alpha=number(d.alpha, ".2f"), tau=number(d.tau, ".2f"), rounds=str(d.rounds))
                     for d in named)
