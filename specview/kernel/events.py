"""The event model every backend yields: one Round per target forward, and what a run says besides."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

from specview.boundary.bounds import (
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
from specview.boundary.text import sanitize, shown

# re-exported: a Calibration is a stream item, and most readers import it with the other events
from specview.kernel.calibration import Basis as Basis
from specview.kernel.calibration import Calibration as Calibration
from specview.kernel.drafters import MAX_DRAFTER_NAME
from specview.kernel.gamma_choice import GammaChoice
from specview.kernel.lost_from import checked_lost_from, leaf_chains
from specview.kernel.totals import CrossChecked, Totals


class TokenStatus(Enum):
    """What happened to one token in a round."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    CORRECTED = "corrected"
    BONUS = "bonus"
    PLAIN = "plain"
    DISCARDED = "discarded"  # drafted after the first rejection: never verified, never emitted
    UNDECIDED = "undecided"  # a draft shown before its verdict (step mode); never in a backend's Round
    LOST = "lost"  # a tree branch that lost, drawn as one token (kernel/lost_branches.py); never in a Round


NOT_EMITTED = frozenset({TokenStatus.REJECTED, TokenStatus.DISCARDED, TokenStatus.UNDECIDED, TokenStatus.LOST})
# The marks that tell statuses apart without colour (before, after the token's text); a rejected
# draft is struck through instead, and accepted and plain tokens carry none.
MARKS: dict[TokenStatus, tuple[str, str]] = {
    TokenStatus.CORRECTED: ("▸", ""),
    TokenStatus.BONUS: ("", "⁺"),
    TokenStatus.DISCARDED: ("", "ˣ"),
    TokenStatus.UNDECIDED: ("", "ˀ"),
    TokenStatus.LOST: ("⟨", "⟩"),
}


_STATUSES = {status.value: status for status in TokenStatus}
MAX_Q_TOP = 8  # q's top tokens a round keeps per draft position
Q_TOP = 3  # what the local loop keeps: the inspector's rank, and what a width-2/3 tree would have had
_PROBABILITY_MAX = 1.0 + 1e-9  # a normalised float distribution may put 1 + ε on one token


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
    q_rank: int | None = None  # the token's rank in the draft's q at its position (0: below q's recorded top)

    @property
    def emitted(self) -> bool:
        """True when the token is part of the output (not a rejected, discarded or undecided draft)."""
        return self.status not in NOT_EMITTED

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
        for key in ("u", "residual", "residual_p", "q_rank"):  # only where the verifier knew them
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

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
            u=optional_real(data.get("u"), f"{field}.u", 0.0, 1.0),
            residual=optional_real(data.get("residual"), f"{field}.residual", 0.0, _PROBABILITY_MAX),
            residual_p=optional_real(data.get("residual_p"), f"{field}.residual_p", 0.0, _PROBABILITY_MAX),
            q_rank=optional_integer(data.get("q_rank"), f"{field}.q_rank", 0, MAX_Q_TOP),
        )


@dataclass(frozen=True, slots=True)
class Round:
    """One target forward: the drafts it verified, the tokens it emitted, and the drafts it threw away.

    `tokens` are in display order: accepted…, rejected?, corrected|bonus (or one plain token).
    `discarded` are the drafts after the first rejection, in draft order: the target never
    judged them (its logits there condition on the rejected draft), so they carry q where the
    drafter knows it and never p. `drafter` names who drafted the round where a run mixes
    drafters (kernel/drafters.py); "" where nobody did or the backend does not say.
    A tree round (`--tree`, backends/local/tree.py) shows its accepted path in `tokens` and keeps
    the branches that lost in `lost` (rejected by the target, or discarded below a rejected one;
    `position` is the depth − 1), and `lost_from[i]` says what `lost[i]` hangs from (the path, the
    rejected token shown, or an earlier lost token: kernel/lost_from.py), so the branches can be
    drawn (kernel/lost_branches.py); empty in recordings made before it was kept. `q_top[k]` is the
    draft's most probable tokens at draft position k, where the drafter knows them: the rank of
    the target's token in q.
    """

    index: int
    drafted: int
    tokens: tuple[TokenEvent, ...]
    t_draft_s: float | None
    t_verify_s: float | None
    t_wall: float
    discarded: tuple[TokenEvent, ...] = ()
    drafter: str = ""
    lost: tuple[TokenEvent, ...] = ()
    q_top: tuple[tuple[int, ...], ...] = ()
    lost_from: tuple[int, ...] = ()

    @property
    def accepted(self) -> int:
        return sum(1 for t in self.tokens if t.status is TokenStatus.ACCEPTED)

    @property
    def emitted(self) -> int:
        return sum(1 for t in self.tokens if t.emitted)

    def lost_chains(self) -> list[tuple[list[int], int]]:
        """Each lost leaf's branch, as indices into `lost`, and what it hangs from (kernel/lost_from.py)."""
        return leaf_chains(self.lost_from, len(self.lost))

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
        if self.drafter:
            out["drafter"] = self.drafter
        if self.lost:
            out["lost"] = [t.to_dict() for t in self.lost]
        if self.lost_from:
            out["lost_from"] = list(self.lost_from)
        if self.q_top:
            out["q_top"] = [list(top) for top in self.q_top]
        return out

    @classmethod
    def from_dict(cls, data: Any, field: str = "round") -> Round:
        """A round read from outside: types, ranges and the counts' consistency checked.

        Rounds recorded before discarded drafts were kept (format versions 1 and 2) have none.
        """
        data = mapping(data, field)
        drafted = integer(data.get("drafted"), f"{field}.drafted", 0, MAX_ROUND_DRAFTS)
        items = sequence(data.get("tokens"), f"{field}.tokens", MAX_ROUND_TOKENS)
        tokens = tuple(TokenEvent.from_dict(t, f"{field}.tokens[{i}]") for i, t in enumerate(items))
        accepted = sum(1 for t in tokens if t.status is TokenStatus.ACCEPTED)
        if accepted > drafted:
            raise Invalid(f"{field} has {accepted} accepted tokens but drafted {drafted}")
        thrown = sequence(data.get("discarded", []), f"{field}.discarded", MAX_ROUND_DRAFTS)
        discarded = tuple(TokenEvent.from_dict(t, f"{field}.discarded[{i}]") for i, t in enumerate(thrown))
        if any(t.status is not TokenStatus.DISCARDED for t in discarded):
            raise Invalid(f"{field}.discarded holds a token that is not a discarded draft")
        if accepted + len(discarded) > drafted:
            raise Invalid(f"{field} has {len(discarded)} discarded drafts beyond the {drafted} drafted")
        branches = sequence(data.get("lost", []), f"{field}.lost", MAX_ROUND_DRAFTS)
        lost = tuple(TokenEvent.from_dict(t, f"{field}.lost[{i}]") for i, t in enumerate(branches))
        if any(t.status not in (TokenStatus.REJECTED, TokenStatus.DISCARDED) for t in lost):
            raise Invalid(f"{field}.lost holds a token that is neither rejected nor discarded")
        rejected = next((t.position for t in tokens if t.status is TokenStatus.REJECTED), None)
        lost_from = checked_lost_from(data.get("lost_from", []), [t.position for t in lost], rejected,
                                      f"{field}.lost_from")
        tops = sequence(data.get("q_top", []), f"{field}.q_top", MAX_ROUND_DRAFTS)
        q_top = tuple(
            tuple(integer(t, f"{field}.q_top[{i}][{j}]", 0, MAX_TOKEN_ID)
                  for j, t in enumerate(sequence(top, f"{field}.q_top[{i}]", MAX_Q_TOP)))
            for i, top in enumerate(tops)
        )
        return cls(
            index=integer(data.get("index"), f"{field}.index", 0, MAX_COUNTER),
            drafted=drafted,
            tokens=tokens,
            t_draft_s=optional_real(data.get("t_draft_s"), f"{field}.t_draft_s", 0.0),
            t_verify_s=optional_real(data.get("t_verify_s"), f"{field}.t_verify_s", 0.0),
            t_wall=real(data.get("t_wall"), f"{field}.t_wall"),
            discarded=discarded,
            # a name from outside: made safe (secrets masked first), then cut, so reading it again keeps it
            drafter=sanitize(string(data.get("drafter", ""), f"{field}.drafter"), one_line=True)[:MAX_DRAFTER_NAME],
            lost=lost,
            q_top=q_top,
            lost_from=lost_from,
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


StreamItem = Round | Reconcile | Calibration | Totals | CrossChecked | GammaChoice  # what a backend yields


def only_rounds(items: Iterable[StreamItem]) -> Iterator[Round]:
    """The rounds of a backend's output, without what it says besides (a screen that shows rounds only)."""
    return (item for item in items if isinstance(item, Round))
