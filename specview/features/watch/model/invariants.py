"""The counter invariants a server's speculative counts must keep (watch, the fleet and doctor check
them before any rate is built on them): each by id, and the check itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The invariants, by id (texts: `watch.rule.<id>` names the rule, `watch.broken.<id>` says how
# it broke, filled from `Violation.values`)
ACCEPTED_LE_DRAFTED = "accepted_le_drafted"  # accepted ≤ drafted tokens
DRAFTS_LE_TOKENS = "drafts_le_tokens"  # drafts ≤ drafted tokens (a draft has at least one token)
POSITIONS_SUM = "positions_sum"  # Σ per-position = accepted
POSITIONS_FALL = "positions_fall"  # per-position counts never rise with the position


@dataclass(frozen=True, slots=True)
class Violation:
    """A broken counter invariant: where (`scrape` or `delta`), which rule (an id above) and
    the counts that broke it."""

    where: str
    rule: str
    values: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"where": self.where, "rule": self.rule, **self.values}


def check_invariants(drafts: int, draft_tokens: int, accepted: int, per_position: tuple[int, ...],
                     where: str, *, complete: bool = True) -> list[Violation]:
    """Every broken invariant among these counts (cumulative or a delta); Σ per-position =
    accepted only where `per_position` holds every series (`complete`)."""
    found: list[Violation] = []
    if accepted > draft_tokens:
        found.append(Violation(where, ACCEPTED_LE_DRAFTED, {"accepted": accepted, "drafted": draft_tokens}))
    if drafts > draft_tokens:
        found.append(Violation(where, DRAFTS_LE_TOKENS, {"drafts": drafts, "drafted": draft_tokens}))
    if per_position:
        total = sum(per_position)
        if complete and total != accepted:
            found.append(Violation(where, POSITIONS_SUM, {"sum": total, "accepted": accepted}))
        previous = drafts
        for k, count in enumerate(per_position):
            if count > previous:
                found.append(Violation(where, POSITIONS_FALL, {"position": k, "count": count, "before": previous}))
                break
            previous = count
    return found
