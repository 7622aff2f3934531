"""The first poll's window of `watch --prometheus` (all of `--once`'s): the one asked with
`--interval`, between two of an instance's scrapes, in place of the history's windows it overlaps."""

from __future__ import annotations

from dataclasses import replace

from specview.features.watch.model import Scrape, WatchModel, WatchSample


def between(before: Scrape, now: Scrape) -> WatchSample | None:
    """The sample from one scrape to a later one, folded on their own."""
    model = WatchModel(history=1)
    model.feed(before)
    return model.feed(now)


def instead(asked: WatchSample, history: list[WatchSample],
            folded: WatchSample | None) -> tuple[WatchSample, list[WatchSample]]:
    """The asked window in place of the samples it overlaps (the history's after its start, and the
    one folded now), saying what they said, and what it says that no sample has said (each once)."""
    kept = [s for s in history if s.t <= asked.t - asked.dt]
    replaced = [s for s in history if s.t > asked.t - asked.dt] + ([folded] if folded is not None else [])
    seen = {n.id for s in (*history, *replaced) for n in s.notes}
    said = {n.id: n for s in replaced for n in s.notes}
    said.update((n.id, n) for n in asked.notes if n.id not in seen)
    return replace(asked, notes=tuple(said.values())), kept
