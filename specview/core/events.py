"""The event model every backend yields: one Round per target forward."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class TokenStatus(Enum):
    """What happened to one token in a round."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    CORRECTED = "corrected"
    BONUS = "bonus"
    PLAIN = "plain"


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
    def from_dict(cls, data: dict[str, Any]) -> TokenEvent:
        return cls(
            token_id=data.get("id"),
            text=str(data["text"]),
            status=TokenStatus(data["status"]),
            position=data.get("pos"),
            p=data.get("p"),
            q=data.get("q"),
            inferred=bool(data.get("inferred", False)),
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
    def from_dict(cls, data: dict[str, Any]) -> Round:
        return cls(
            index=int(data["index"]),
            drafted=int(data["drafted"]),
            tokens=tuple(TokenEvent.from_dict(t) for t in data["tokens"]),
            t_draft_s=data.get("t_draft_s"),
            t_verify_s=data.get("t_verify_s"),
            t_wall=float(data["t_wall"]),
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
    def from_dict(cls, data: dict[str, Any]) -> Reconcile:
        return cls(first_index=int(data["first_index"]), rounds=tuple(Round.from_dict(r) for r in data["rounds"]))
