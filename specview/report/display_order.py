"""The order the stream shows a round's tokens in."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.lost_branches import with_branches

if TYPE_CHECKING:
    from specview.kernel.session import Drained


def displayed(rounds: Iterable[Round], *, lost: bool = False) -> list[TokenEvent]:
    """Rounds' tokens in a row as the stream shows them: the discarded drafts right after the
    rejected one (the continuation the draft had in mind), then the target's correction; with
    `lost`, a tree round's lost branches too, each one token where it lost (kernel/lost_branches.py).
    Most rounds have neither and are shown as they are: one list for a whole drain, no copy a round."""
    out: list[TokenEvent] = []
    rejected = TokenStatus.REJECTED
    for rnd in rounds:
        if lost and rnd.lost:
            out += with_branches(rnd)
        elif not rnd.discarded:
            out += rnd.tokens
        else:
            for token in rnd.tokens:
                out.append(token)
                if token.status is rejected:
                    out += rnd.discarded
    return out


def drawable(history: Sequence[Round], drained: Drained) -> tuple[bool, list[TokenEvent]]:
    """What a view shows for a drain: (replace everything?, the tokens to add).

    After a reconcile the view redraws the whole (exact) `history`; otherwise it appends."""
    rounds = history if drained.reconciled else drained.rounds
    return drained.reconciled, displayed(rounds, lost=True)
