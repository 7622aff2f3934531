"""What a server tells at the end of a request: its exact totals, and how its own counters compare
with the counts specview showed (the cross-check). Both are stream items a backend yields after
the request's rounds; `Metrics` folds them, recordings keep them (format version 4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from specview.boundary.bounds import (
    MAX_COUNTER,
    MAX_POSITION,
    Invalid,
    integer,
    mapping,
    optional_integer,
    sequence,
    string,
)
from specview.boundary.text import sanitize
from specview.texts.catalog import Phrase

MAX_TOTALS_SOURCE = 64  # characters of a totals' source name (a field path such as "meta_info")
MAX_TOTALS_SOURCES = 4  # distinct source names a sum keeps (one server kind names one; the rest are "…")
SOURCES_JOINED = " + "
MORE_SOURCES = "…"  # after the kept names: requests came from further sources


@dataclass(frozen=True, slots=True)
class Totals:
    """A request's exact counts, as the server reported them when the request ended.

    Engines that say nothing per round still count at the end (SGLang's
    `spec_tokens_details`, LM Studio's and TensorRT-LLM's stats): `drafted` and `accepted`
    draft tokens, and where given `per_position` (accepted drafts at each position 1…γ),
    `verify_steps` (target forwards that verified drafts) and `tokens` (tokens emitted).
    `source` names the server field they came from. A backend yields a request's totals
    after its rounds; `Metrics` folds them over the rounds of the same request (the rule is
    in kernel/metrics.py). Every count is checked on construction (bounds.Invalid names it).
    """

    drafted: int
    accepted: int
    per_position: tuple[int, ...] | None = None
    verify_steps: int | None = None
    tokens: int | None = None
    source: str = "server"

    def __post_init__(self) -> None:
        where = sanitize(self.source, MAX_TOTALS_SOURCE, one_line=True)
        for key in ("drafted", "accepted", "verify_steps", "tokens"):
            value = getattr(self, key)
            if value is not None:
                integer(value, f"{where}.{key}", 0, MAX_COUNTER)
        if self.accepted > self.drafted:
            raise Invalid(f"{where} accepted {self.accepted} of {self.drafted} drafted tokens")
        if self.tokens is not None and self.accepted > self.tokens:
            raise Invalid(f"{where} accepted {self.accepted} drafts but emitted {self.tokens} tokens")
        if self.per_position is not None:
            self._check_positions(where, self.per_position)

    def _check_positions(self, where: str, positions: tuple[int, ...]) -> None:
        """A draft is accepted only after every draft before it was: the counts never rise with
        the position, and the first is at most the verify steps."""
        if len(positions) > MAX_POSITION:
            raise Invalid(f"{where}.per_position has {len(positions)} items, at most {MAX_POSITION} expected")
        for k, count in enumerate(positions):
            integer(count, f"{where}.per_position[{k}]", 0, MAX_COUNTER)
            if k and count > positions[k - 1]:
                raise Invalid(f"{where}.per_position[{k}] ({count}) is above position {k - 1}'s "
                              f"({positions[k - 1]}): a draft is accepted only after the ones before it")
        if positions and self.verify_steps is not None and positions[0] > self.verify_steps:
            raise Invalid(f"{where}.per_position[0] ({positions[0]}) is above the {self.verify_steps} verify steps")

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "drafted": self.drafted,
            "accepted": self.accepted,
            "per_position": None if self.per_position is None else list(self.per_position),
            "verify_steps": self.verify_steps,
            "tokens": self.tokens,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Totals:
        """Totals read from outside (a recording): types, ranges and consistency checked."""
        data = mapping(data, "totals")
        source = string(data.get("source", "server"), "totals.source")
        if len(source) > MAX_TOTALS_SOURCE:
            raise Invalid(f"totals.source is {len(source)} characters long, at most {MAX_TOTALS_SOURCE} expected")
        positions = data.get("per_position")
        if positions is not None:
            positions = tuple(sequence(positions, "totals.per_position", MAX_POSITION))
        return cls(
            drafted=integer(data.get("drafted"), "totals.drafted", 0, MAX_COUNTER),
            accepted=integer(data.get("accepted"), "totals.accepted", 0, MAX_COUNTER),
            per_position=positions,
            verify_steps=optional_integer(data.get("verify_steps"), "totals.verify_steps", 0, MAX_COUNTER),
            tokens=optional_integer(data.get("tokens"), "totals.tokens", 0, MAX_COUNTER),
            source=source,
        )


def _summed(field: str, before: int, value: int, requests: int) -> int:
    """before + value, refused (Invalid, in the user's words) past MAX_COUNTER."""
    total = before + value
    if total > MAX_COUNTER:
        raise Invalid(Phrase("run_bounds.totals_sum", field=field, total=total, most=MAX_COUNTER, requests=requests))
    return total


class TotalsSum:
    """Requests' totals added up, one request at a time, in constant work per request.

    Counts are summed as numbers, each sum checked against MAX_COUNTER before anything changes
    (`add` raises Invalid naming the count: two in-bound requests may pass the bound together);
    source names are kept as a set of at most MAX_TOTALS_SOURCES distinct names, joined only when
    the sum is read, so a run of many requests from many sources reads as a short line.
    """

    def __init__(self) -> None:
        self.requests = 0
        self._drafted = 0
        self._accepted = 0
        self._positions: list[int] | None = []  # None once a request lacked them (lacking in the sum)
        self._verify_steps: int | None = 0
        self._tokens: int | None = 0
        self._sources: dict[str, None] = {}  # the first distinct names, in the order they came
        self._more_sources = False
        self._read: Totals | None = None  # the sum as last read (until the next request)

    def add(self, totals: Totals) -> None:
        """One more request's totals; Invalid when a sum would pass MAX_COUNTER (nothing added)."""
        at = self.requests + 1

        def either(field: str, before: int | None, value: int | None) -> int | None:
            return None if before is None or value is None else _summed(field, before, value, at)

        drafted = _summed("drafted", self._drafted, totals.drafted, at)
        accepted = _summed("accepted", self._accepted, totals.accepted, at)
        steps = either("verify_steps", self._verify_steps, totals.verify_steps)
        tokens = either("tokens", self._tokens, totals.tokens)
        positions = None
        if self._positions is not None and totals.per_position is not None:
            mine, theirs = self._positions, totals.per_position
            positions = [_summed(f"per_position[{k}]", mine[k] if k < len(mine) else 0,
                                 theirs[k] if k < len(theirs) else 0, at)
                         for k in range(max(len(mine), len(theirs)))]
        self._drafted, self._accepted, self._verify_steps, self._tokens = drafted, accepted, steps, tokens
        self._positions = positions
        if totals.source not in self._sources:
            if len(self._sources) < MAX_TOTALS_SOURCES:
                self._sources[totals.source] = None
            else:
                self._more_sources = True
        self.requests += 1
        self._read = None

    @property
    def source(self) -> str:
        """The sources' names joined (`a + b`), with "…" when more came than are kept."""
        return SOURCES_JOINED.join((*self._sources, *((MORE_SOURCES,) if self._more_sources else ())))

    def totals(self) -> Totals | None:
        """The sum as one Totals (None before the first request)."""
        if not self.requests:
            return None
        if self._read is None:
            positions = None if self._positions is None else tuple(self._positions)
            self._read = Totals(self._drafted, self._accepted, positions, self._verify_steps, self._tokens,
                                self.source)
        return self._read


MAX_CHECK_SOURCE = 16  # characters of a check's source ("/metrics")


@dataclass(frozen=True, slots=True)
class CrossChecked:
    """What a server's own counters said about a request that ended, beside the counts shown.

    `drafted` and `accepted` are the counts shown; `differs_by` is server − shown for drafting
    rounds, drafted and accepted draft tokens, `per_position` server − shown at each position
    (a position one side never reached counts 0 there). `source` names the counters ("/metrics").
    """

    source: str
    drafted: int
    accepted: int
    differs_by: tuple[int, int, int] = (0, 0, 0)
    per_position: tuple[int, ...] = ()

    @property
    def agrees(self) -> bool:
        """Every count equal, position by position too."""
        return not any(self.differs_by) and not any(self.per_position)

    def to_dict(self) -> dict[str, Any]:
        drafts, drafted, accepted = self.differs_by
        return {"source": self.source, "agrees": self.agrees,
                "shown": {"drafted": self.drafted, "accepted": self.accepted},
                "differs_by": {"drafts": drafts, "drafted": drafted, "accepted": accepted,
                               "per_position": list(self.per_position)}}

    @classmethod
    def from_dict(cls, data: Any) -> CrossChecked:
        """A check read from outside (a recording): every count bounded (`agrees` is recomputed)."""
        data = mapping(data, "check")
        source = string(data.get("source"), "check.source")
        if len(source) > MAX_CHECK_SOURCE:
            raise Invalid(f"check.source is {len(source)} characters long, at most {MAX_CHECK_SOURCE} expected")
        shown = mapping(data.get("shown"), "check.shown")
        diff = mapping(data.get("differs_by"), "check.differs_by")
        positions = sequence(diff.get("per_position", []), "check.differs_by.per_position", MAX_POSITION)

        def delta(value: Any, field: str) -> int:
            return integer(value, f"check.differs_by.{field}", -MAX_COUNTER, MAX_COUNTER)

        return cls(
            source=source,
            drafted=integer(shown.get("drafted"), "check.shown.drafted", 0, MAX_COUNTER),
            accepted=integer(shown.get("accepted"), "check.shown.accepted", 0, MAX_COUNTER),
            differs_by=(delta(diff.get("drafts"), "drafts"), delta(diff.get("drafted"), "drafted"),
                        delta(diff.get("accepted"), "accepted")),
            per_position=tuple(delta(d, f"per_position[{k}]") for k, d in enumerate(positions)),
        )
