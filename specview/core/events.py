"""The event model every backend yields: one Round per target forward."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from specview.core.bounds import (
    MAX_COUNTER,
    MAX_POSITION,
    MAX_ROUND_DRAFTS,
    MAX_ROUND_TOKENS,
    MAX_TOKEN_ID,
    Invalid,
    integer,
    mapping,
    optional_integer,
    optional_real,
    real,
    sequence,
    string,
)
from specview.core.text import shown


class TokenStatus(Enum):
    """What happened to one token in a round."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    CORRECTED = "corrected"
    BONUS = "bonus"
    PLAIN = "plain"


_STATUSES = {status.value: status for status in TokenStatus}
_PROBABILITY_MAX = 1.0 + 1e-9  # a normalised float distribution may put 1 + ε on one token


@dataclass(frozen=True, slots=True)
class TokenEvent:
    """One token as shown: drafted (accepted/rejected) or emitted by the target."""

    token_id: int | None
    text: str
    status: TokenStatus
    position: int | None = None
    p: float | None = None
    q: float | None = None
    inferred: bool = False

    @property
    def emitted(self) -> bool:
        """True when the token is part of the output (everything but a rejected draft)."""
        return self.status is not TokenStatus.REJECTED

    def __reduce__(self) -> tuple[type[TokenEvent], tuple[Any, ...]]:
        # By position: about twice as fast to unpickle as the slots state (the flat-out producer).
        return (TokenEvent, (self.token_id, self.text, self.status, self.position, self.p, self.q, self.inferred))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.token_id,
            "text": self.text,
            "status": self.status.value,
            "pos": self.position,
            "p": self.p,
            "q": self.q,
            "inferred": self.inferred,
        }

    @classmethod
    def from_dict(cls, data: Any, field: str = "token") -> TokenEvent:
        """A token read from outside (a recording): every field checked (bounds.Invalid names it)."""
        data = mapping(data, field)
        status = string(data.get("status"), f"{field}.status")
        if status not in _STATUSES:
            raise Invalid(f"{field}.status is {shown(status)}, expected one of {', '.join(_STATUSES)}")
        inferred = data.get("inferred", False)
        if not isinstance(inferred, bool):
            raise Invalid(f"{field}.inferred must be true or false, got {shown(inferred)}")
        return cls(
            token_id=optional_integer(data.get("id"), f"{field}.id", 0, MAX_TOKEN_ID),
            text=string(data.get("text"), f"{field}.text"),
            status=_STATUSES[status],
            position=optional_integer(data.get("pos"), f"{field}.pos", 0, MAX_POSITION),
            p=optional_real(data.get("p"), f"{field}.p", 0.0, _PROBABILITY_MAX),
            q=optional_real(data.get("q"), f"{field}.q", 0.0, _PROBABILITY_MAX),
            inferred=inferred,
        )


@dataclass(frozen=True, slots=True)
class Round:
    """One target forward: the drafts it verified and the tokens it emitted."""

    index: int
    drafted: int
    tokens: tuple[TokenEvent, ...]
    t_draft_s: float | None
    t_verify_s: float | None
    t_wall: float

    @property
    def accepted(self) -> int:
        return sum(1 for t in self.tokens if t.status is TokenStatus.ACCEPTED)

    @property
    def emitted(self) -> int:
        return sum(1 for t in self.tokens if t.emitted)

    def __reduce__(self) -> tuple[type[Round], tuple[Any, ...]]:
        return (Round, (self.index, self.drafted, self.tokens, self.t_draft_s, self.t_verify_s, self.t_wall))

    @property
    def text(self) -> str:
        """The text this round added to the output."""
        return "".join(t.text for t in self.tokens if t.emitted)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "drafted": self.drafted,
            "tokens": [t.to_dict() for t in self.tokens],
            "t_draft_s": self.t_draft_s,
            "t_verify_s": self.t_verify_s,
            "t_wall": self.t_wall,
        }

    @classmethod
    def from_dict(cls, data: Any, field: str = "round") -> Round:
        """A round read from outside: types, ranges and the counts' consistency checked."""
        data = mapping(data, field)
        drafted = integer(data.get("drafted"), f"{field}.drafted", 0, MAX_ROUND_DRAFTS)
        items = sequence(data.get("tokens"), f"{field}.tokens", MAX_ROUND_TOKENS)
        tokens = tuple(TokenEvent.from_dict(t, f"{field}.tokens[{i}]") for i, t in enumerate(items))
        accepted = sum(1 for t in tokens if t.status is TokenStatus.ACCEPTED)
        if accepted > drafted:
            raise Invalid(f"{field} has {accepted} accepted tokens but drafted {drafted}")
        return cls(
            index=integer(data.get("index"), f"{field}.index", 0, MAX_COUNTER),
            drafted=drafted,
            tokens=tokens,
            t_draft_s=optional_real(data.get("t_draft_s"), f"{field}.t_draft_s", 0.0),
            t_verify_s=optional_real(data.get("t_verify_s"), f"{field}.t_verify_s", 0.0),
            t_wall=real(data.get("t_wall"), f"{field}.t_wall"),
        )


@dataclass(frozen=True, slots=True)
class Reconcile:
    """Exact rounds that replace everything shown from round `first_index` on.

    Some servers tell the exact grouping only at the end of a request (vLLM's
    `per_step_accepted`); the inferred rounds streamed before are then redrawn from these.
    """

    first_index: int
    rounds: tuple[Round, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"first_index": self.first_index, "rounds": [r.to_dict() for r in self.rounds]}

    @classmethod
    def from_dict(cls, data: Any) -> Reconcile:
        """A reconcile read from outside (its rounds checked like any round)."""
        data = mapping(data, "reconcile")
        items = sequence(data.get("rounds"), "reconcile.rounds", MAX_COUNTER)
        return cls(
            first_index=integer(data.get("first_index"), "reconcile.first_index", 0, MAX_COUNTER),
            rounds=tuple(Round.from_dict(r, f"reconcile.rounds[{i}]") for i, r in enumerate(items)),
        )
