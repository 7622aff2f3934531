"""The crossover's baseline for one-server watch (model/crossover.py): a plain server of the same
model (`--baseline URL`), scraped beside the watched one at each poll and kept in its own
LoadTable, so plain decoding's tokens/s per request is measured at each level of running
requests from its own /metrics; else a fixed one (a load sweep's file, `--baseline FILE`, or the
number `--baseline-tps` gives, at every level); else none.

A failed scrape of the plain server is counted and skipped (the baseline keeps what it had): it
is a comparison, not the server watched. The plain server's load is its own traffic: a level it
never runs at has no baseline.
"""

from __future__ import annotations

from specview.features.watch.model import WatchModel
from specview.features.watch.model.by_load import LoadTable
from specview.features.watch.model.crossover import Baseline
from specview.features.watch.source import ServerWatch
from specview.kernel.errors import SpecviewError


class PlainFeed:
    """Where one-server watch's baseline comes from (see the module docstring)."""

    def __init__(self, plain: ServerWatch | None = None, fixed: Baseline | None = None) -> None:
        self.plain = plain
        self.fixed = fixed
        self.model = WatchModel()
        self.table = LoadTable(plain.kind.active_gauge if plain is not None else None)
        self.failed = 0  # plain scrapes that failed

    def poll(self) -> None:
        """One scrape of the plain server into its table (nothing without one)."""
        if self.plain is None:
            return
        try:
            sample = self.model.feed(self.plain.scrape())
        except SpecviewError:
            self.failed += 1
            return
        if sample is not None:
            self.table.add(sample)

    def baseline(self) -> Baseline | None:
        """The plain server's levels as measured, else the fixed baseline, else None."""
        if self.plain is not None:
            return self.table.as_baseline(self.plain.root, self.failed)
        return self.fixed

    def interrupt(self) -> None:
        """End a plain scrape in flight at once (any thread), as the watched server's."""
        if self.plain is not None:
            self.plain.interrupt()

    def close(self) -> None:
        if self.plain is not None:
            self.plain.close()
