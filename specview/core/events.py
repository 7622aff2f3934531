"""The event model every backend yields: one Round per target forward."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from itertools import islice
from typing import Any


class TokenStatus(Enum):
    """What happened to one token in a round."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    CORRECTED = "corrected"
    BONUS = "bonus"
    PLAIN = "plain"
    DISCARDED = "discarded"  # drafted after the first rejection: never verified, never emitted
    UNDECIDED = "undecided"  # a draft shown before its verdict (step mode); never in a backend's Round


_NOT_EMITTED = frozenset({TokenStatus.REJECTED, TokenStatus.DISCARDED, TokenStatus.UNDECIDED})


@dataclass(frozen=True, slots=True)
class TokenEvent:
    """One token as shown: drafted (accepted/rejected/discarded) or emitted by the target.

    Where the verifier knows them: `u` is the uniform draw a draft was judged with (accepted
    when u < min(1, p/q)); for a corrected token `residual` is the residual mass
    Σ max(0, p − q) = 1 − α at its position and `residual_p` its probability under
    norm(max(0, p − q)), the distribution it was drawn from.
    """

    token_id: int | None
    text: str
    status: TokenStatus
    position: int | None = None
    p: float | None = None
    q: float | None = None
    inferred: bool = False
    u: float | None = None
    residual: float | None = None
    residual_p: float | None = None

    @property
    def emitted(self) -> bool:
        """True when the token is part of the output (not a rejected, discarded or undecided draft)."""
        return self.status not in _NOT_EMITTED

    def __reduce__(self) -> tuple[type[TokenEvent], tuple[Any, ...]]:
        # By position: about twice as fast to unpickle as the slots state (the flat-out producer).
        return (TokenEvent, (self.token_id, self.text, self.status, self.position, self.p, self.q, self.inferred,
                             self.u, self.residual, self.residual_p))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.token_id,
            "text": self.text,
            "status": self.status.value,
            "pos": self.position,
            "p": self.p,
            "q": self.q,
            "inferred": self.inferred,
        }
        for key in ("u", "residual", "residual_p"):  # only where the verifier knew them
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

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
            u=data.get("u"),
            residual=data.get("residual"),
            residual_p=data.get("residual_p"),
        )


@dataclass(frozen=True, slots=True)
class Round:
    """One target forward: the drafts it verified, the tokens it emitted, and the drafts it threw away.

    `tokens` are in display order: accepted…, rejected?, corrected|bonus (or one plain token).
    `discarded` are the drafts after the first rejection, in draft order: the target never
    judged them (its logits there condition on the rejected draft), so they carry q where the
    drafter knows it and never p.
    """

    index: int
    drafted: int
    tokens: tuple[TokenEvent, ...]
    t_draft_s: float | None
    t_verify_s: float | None
    t_wall: float
    discarded: tuple[TokenEvent, ...] = ()

    @property
    def accepted(self) -> int:
        return sum(1 for t in self.tokens if t.status is TokenStatus.ACCEPTED)

    @property
    def emitted(self) -> int:
        return sum(1 for t in self.tokens if t.emitted)

    def __reduce__(self) -> tuple[type[Round], tuple[Any, ...]]:
        return (Round, (self.index, self.drafted, self.tokens, self.t_draft_s, self.t_verify_s, self.t_wall,
                        self.discarded))

    @property
    def text(self) -> str:
        """The text this round added to the output."""
        return "".join(t.text for t in self.tokens if t.emitted)

    def to_dict(self) -> dict[str, Any]:
        """The round as JSON-ready data (a recording line's body); `discarded` only when there are some."""
        out: dict[str, Any] = {
            "index": self.index,
            "drafted": self.drafted,
            "tokens": [t.to_dict() for t in self.tokens],
            "t_draft_s": self.t_draft_s,
            "t_verify_s": self.t_verify_s,
            "t_wall": self.t_wall,
        }
        if self.discarded:
            out["discarded"] = [t.to_dict() for t in self.discarded]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Round:
        """The inverse of `to_dict`; rounds recorded before discarded drafts were kept have none."""
        return cls(
            index=int(data["index"]),
            drafted=int(data["drafted"]),
            tokens=tuple(TokenEvent.from_dict(t) for t in data["tokens"]),
            t_draft_s=data.get("t_draft_s"),
            t_verify_s=data.get("t_verify_s"),
            t_wall=float(data["t_wall"]),
            discarded=tuple(TokenEvent.from_dict(t) for t in data.get("discarded") or ()),
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


BASES = ("measured", "assumed", "given", "paired")
MAX_VERIFY_COSTS = 64  # k-token costs kept per calibration (γ is at most 32)


@dataclass(frozen=True, slots=True)
class Calibration:
    """What plain decoding costs on this backend: the baseline a measured speedup divides by.

    `basis` says where the numbers come from: "measured" (timed here, inside llama_decode, at
    the live context), "assumed" (a model's assumption, e.g. the simulator's "verify ≈ 1
    forward"), "given" (`--baseline-tps`) or "paired" (a plain run on another server).
    `plain_s` is one plain decoding step (seconds per token); `verify_costs_s[k-1]` the cost
    of one k-token target forward, k = 1 … len (empty when unknown).
    """

    basis: str
    plain_s: float | None
    verify_costs_s: tuple[float, ...] = ()
    context: int | None = None

    def __post_init__(self) -> None:
        if self.basis not in BASES:
            raise ValueError(f"calibration basis must be one of {BASES}, got {self.basis!r}")
        if self.plain_s is not None and not self.plain_s > 0:
            raise ValueError(f"plain_s must be > 0, got {self.plain_s}")
        if len(self.verify_costs_s) > MAX_VERIFY_COSTS:
            raise ValueError(f"at most {MAX_VERIFY_COSTS} verify costs, got {len(self.verify_costs_s)}")
        if any(not cost > 0 for cost in self.verify_costs_s):
            raise ValueError("verify costs must be > 0")

    @property
    def plain_tokens_per_second(self) -> float | None:
        return None if self.plain_s is None else 1.0 / self.plain_s

    def verify_ratio(self, gamma: int) -> float | None:
        """v(γ) = cost(γ+1) / cost(1), when both were measured (or assumed)."""
        costs = self.verify_costs_s
        return costs[gamma] / costs[0] if 0 <= gamma < len(costs) else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "basis": self.basis,
            "plain_s": self.plain_s,
            "verify_costs_s": list(self.verify_costs_s),
            "context": self.context,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Calibration:
        plain = data.get("plain_s")
        context = data.get("context")
        return cls(
            basis=str(data["basis"]),
            plain_s=None if plain is None else float(plain),
            verify_costs_s=tuple(float(c) for c in islice(data.get("verify_costs_s") or (), MAX_VERIFY_COSTS + 1)),
            context=None if context is None else int(context),
        )


StreamItem = Round | Reconcile | Calibration  # what a backend yields
