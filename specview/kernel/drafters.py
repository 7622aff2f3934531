"""Rounds attributed to their drafter: α and τ per drafter, for runs that mix drafters.

llama.cpp can chain spec types (n-gram first, a model draft where the n-gram finds nothing:
#23269), so one request's rounds come from different drafters, and one α for the run hides
which pays. `Round.drafter` names the drafter of a round ("" where nobody drafted or the
backend does not say); the name may come from outside (a recording), so it is sanitized and
bounded when read, and at most MAX_DRAFTERS names are kept apart: the rest count under OTHER.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_DRAFTERS = 8  # names kept apart in one run (a hostile recording could send a new one per round)
MAX_DRAFTER_NAME = 48  # characters of a drafter's name
OTHER = "…"  # where the rounds of the names beyond MAX_DRAFTERS count


@dataclass(frozen=True, slots=True)
class DrafterCounts:
    """One drafter's rounds: what they drafted, verified, accepted and emitted."""

    name: str
    rounds: int
    drafted: int
    verified: int
    accepted: int
    emitted: int

    @property
    def alpha(self) -> float | None:
        return self.accepted / self.verified if self.verified else None

    @property
    def tau(self) -> float | None:
        return self.emitted / self.rounds if self.rounds else None


class DrafterFold:
    """Counts per drafter name, in the order the names first drafted."""

    def __init__(self) -> None:
        self._counts: dict[str, list[int]] = {}
        self._named = 0

    def add(self, name: str, emitted: int, drafted: int, verified: int, accepted: int) -> None:
        if not drafted:  # a plain round is nobody's draft
            return
        if name not in self._counts and name and self._named >= MAX_DRAFTERS:
            name = OTHER  # the unnamed ("": the backend does not say) take no name's place
        if name not in self._counts:
            self._named += bool(name) and name != OTHER
        counts = self._counts.setdefault(name, [0, 0, 0, 0, 0])
        counts[0] += 1
        counts[1] += drafted
        counts[2] += verified
        counts[3] += accepted
        counts[4] += emitted

    def snapshot(self) -> tuple[DrafterCounts, ...]:
        return tuple(DrafterCounts(name, *c) for name, c in self._counts.items())


def drafters_json(drafters: tuple[DrafterCounts, ...]) -> list[dict[str, object]]:
    """`by_drafter` of `bench --json` and `replay --json` (empty where no round names a drafter)."""
    named = [d for d in drafters if d.name]
    return [{"drafter": d.name, "rounds": d.rounds, "drafted": d.drafted, "verified": d.verified,
             "accepted": d.accepted, "tokens": d.emitted,
             "alpha": None if d.alpha is None else round(d.alpha, 4),
             "tau": None if d.tau is None else round(d.tau, 4)} for d in named]
