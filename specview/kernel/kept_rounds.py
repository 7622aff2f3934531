"""The rounds a session keeps: the last ones of a run, for an export of it and a redraw after a reconcile.

Kept in chunks: the list grows to `keep` × 5/4 and is cut back to `keep`, so a flat-out run does
not shift the list on every round; folding rounds one at a time or many together keeps the same ones.
"""

from __future__ import annotations

from collections.abc import Sequence

from specview.kernel.events import Round


class KeptRounds:
    """The last rounds of a run, as many as the session's `keep` says (0: none), and how many went."""

    def __init__(self) -> None:
        self.rounds: list[Round] = []
        self.dropped = 0  # rounds no longer kept

    def extend(self, rounds: Sequence[Round], keep: int) -> None:
        """Keep rounds in a row, as keeping each in turn would have."""
        if not keep:
            return
        history = self.rounds
        before = len(history)
        history.extend(rounds)
        most = keep * 5 // 4  # trimmed in chunks: back to `keep` each time a round makes it pass `most`
        first = max(1, most + 1 - before)  # the round whose arrival trims first
        if len(rounds) >= first:
            # what trimming after each round would have left: `keep`, plus the rounds since the last trim
            left = keep + (len(rounds) - first) % (most + 1 - keep)
            drop = len(history) - left
            del history[:drop]
            self.dropped += drop

    def redraw(self, replaced: int, first: int | None, rounds: Sequence[Round], keep: int) -> None:
        """After a reconcile: of the last `replaced` rounds (as many as are kept), those before round
        `first` stay (none for None), and the reconcile's rounds follow."""
        history = self.rounds
        tail = min(len(history), replaced)
        if tail:
            stay = [] if first is None else [r for r in history[-tail:] if r.index < first]
            del history[-tail:]
            history.extend(stay)
        history.extend(rounds)
        if keep and len(history) > keep * 5 // 4:
            drop = len(history) - keep
            del history[:drop]
            self.dropped += drop
