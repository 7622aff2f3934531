"""The order the stream shows a round's tokens in."""

from __future__ import annotations

from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.lost_branches import with_branches


def display_order(rnd: Round, *, lost: bool = False) -> list[TokenEvent]:
    """A round's tokens as the stream shows them: the discarded drafts right after the rejected
    one (the continuation the draft had in mind), then the target's correction; with `lost`, a
    tree round's lost branches too, each one token where it lost (kernel/lost_branches.py)."""
    if lost and rnd.lost:
        return with_branches(rnd)
    if not rnd.discarded:
        return list(rnd.tokens)
    out: list[TokenEvent] = []
    for token in rnd.tokens:
        out.append(token)
        if token.status is TokenStatus.REJECTED:
            out.extend(rnd.discarded)
    return out
