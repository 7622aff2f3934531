"""A reconciling backend's request in progress: the rounds a reconcile may replace, and the folds it starts from.

A backend that reconciles (vLLM: exact rounds at the end of a request) may replace the rounds of
the request in progress, and only those: the session holds that request's rounds (the last
MAX_HELD_ROUNDS of them) beside a second fold, `settled`, of everything before them — rounds of
requests that ended (with a reconcile or totals) and rounds no longer held — so a reconcile folds
again from there, in work proportional to the request rather than to the run. Where a request
outgrew its hold, the fold at its start is kept too, so a reconcile of the whole request stays exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from specview.boundary.bounds import MAX_HELD_ROUNDS
from specview.kernel.events import Reconcile, Round
from specview.kernel.metrics import Metrics
from specview.kernel.totals import Totals


@dataclass(frozen=True, slots=True)
class Reconciled:
    """What a reconcile leaves: the run's fold, and which of the shown rounds it replaced."""

    metrics: Metrics  # the fold to go on with (a new one where held rounds were replaced)
    replaced: int  # the last rounds shown that the reconcile redraws (as many as were held)
    first: int | None  # of those, the ones before this round index stay (None: none stay)


class RequestFold:
    """The request in progress of a reconciling backend (see the module docstring)."""

    def __init__(self) -> None:
        # its rounds a reconcile may replace, how many it has had (held or not), the first one's index,
        # the fold of everything before the held ones, and the fold where it began once it outgrew its hold
        self._held: list[Round] = []
        self._request_rounds = 0
        self._request_first: int | None = None
        self._settled: Metrics | None = None
        self._request_start: Metrics | None = None

    def copies(self) -> tuple[Metrics, ...]:
        """The folds kept beside the run's: what no reconcile replaces (a calibration, a cross-check)
        goes into them too."""
        return tuple(m for m in (self._settled, self._request_start) if m is not None)

    def hold(self, metrics: Metrics, rounds: Sequence[Round]) -> None:
        """Hold rounds as the request's, before `metrics` (the run's fold) takes them; the oldest
        past MAX_HELD_ROUNDS are settled (folded into `settled`, in chunks), after keeping the fold
        where the request began."""
        if self._settled is None:  # before the first round of a request: the fold it starts from
            self._settled = metrics.copy()
        if not rounds:
            return
        if self._request_first is None:
            self._request_first = rounds[0].index
        self._request_rounds += len(rounds)
        held = self._held
        held.extend(rounds)
        if len(held) > MAX_HELD_ROUNDS * 5 // 4:
            if self._request_start is None:
                self._request_start = self._settled.copy()
            settled = len(held) - MAX_HELD_ROUNDS
            self._settled.add_rounds(held[:settled])
            del held[:settled]

    def close(self, totals: Totals) -> None:
        """A request's totals (the run's fold has closed it): its held rounds stand."""
        self._end()
        if self._settled is not None:
            self._settled.close_request(totals)

    def reconcile(self, metrics: Metrics, item: Reconcile) -> Reconciled:
        """Replace the request's rounds from `first_index` on by the reconcile's and fold again from
        before them (rounds of requests that ended stand); the request then ends. Work in
        proportion to the request, not to the run."""
        first, held = item.first_index, self._held
        base: Metrics | None
        if self._request_start is not None and self._request_first is not None and first <= self._request_first:
            # the request outgrew its hold and all of it is replaced: fold again from where it began
            base, kept, replaced, stay = self._request_start, [], self._request_rounds, None
        else:
            kept = [r for r in held if r.index < first]
            base, replaced, stay = (self._settled, len(held), first) if len(kept) < len(held) else (None, 0, first)
        if base is None:  # nothing held is replaced: the reconcile's rounds follow the request's
            metrics.add_rounds(item.rounds)
            self._end()
            if self._settled is not None:
                self._settled.add_rounds(item.rounds)
            return Reconciled(metrics, replaced, stay)
        base.add_rounds(kept)
        base.add_rounds(item.rounds)
        self._settled = None  # taken afresh where the next request begins
        self._end()
        return Reconciled(base, replaced, stay)

    def _end(self) -> None:
        """The request in progress ended: its held rounds stand (the next request starts afresh)."""
        if self._settled is not None:
            self._settled.add_rounds(self._held)
        self._held = []
        self._request_rounds = 0
        self._request_first = None
        self._request_start = None
