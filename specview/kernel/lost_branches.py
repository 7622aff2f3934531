"""A tree round's lost branches as the token view draws them: one token per branch, in place.

Each lost leaf gives one branch: its tokens from where it left the accepted path down to the
leaf (Round.lost_from is the tree), drawn as one LOST token (⟨…⟩, kernel/events.py's MARKS)
just before the path's token at the depth it competed for, the way a chain shows its rejected
draft before the correction that won; a branch below the rejected token the round shows follows
that token, as a chain's discarded drafts do. The branch's first token carries what the
inspector says: its p where the target judged it (None: below a rejected node, never judged),
its q and its rank in q (a sibling of the chain's token is q's rank 2, 3, …).

A recording made before `lost_from` was kept has no tree: each lost token is then its own branch
at its depth.
"""

from __future__ import annotations

from collections.abc import Iterable

from specview.boundary.bounds import MAX_TOKEN_SHOWN
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.lost_from import BELOW_REJECTED

_WINNERS = (TokenStatus.ACCEPTED, TokenStatus.CORRECTED, TokenStatus.BONUS)  # a path token a branch lost to


def branches(rnd: Round) -> list[tuple[int, TokenEvent]]:
    """(where, branch): `where` is the position of the path token the branch lost to, or
    BELOW_REJECTED for a branch below the rejected token shown; in the order of their leaves."""
    lost = rnd.lost
    out = []
    for chain, parent in rnd.lost_chains():
        first = lost[chain[0]]
        where = BELOW_REJECTED if parent == BELOW_REJECTED else (first.position or 0)
        out.append((where, TokenEvent(first.token_id, _joined(lost[i].text for i in chain), TokenStatus.LOST,
                                      first.position, first.p, first.q, q_rank=_rank(rnd, first))))
    return out


def _joined(texts: Iterable[str]) -> str:
    """A branch's text, cut past what the stream shows of one token (a recording's branches may
    be long and share their first tokens: the copies stay small)."""
    out: list[str] = []
    size = 0
    for piece in texts:
        out.append(piece[: MAX_TOKEN_SHOWN + 1 - size])
        size += len(out[-1])
        if size > MAX_TOKEN_SHOWN:
            break
    return "".join(out)


def _rank(rnd: Round, token: TokenEvent) -> int | None:
    k = token.position
    if k is None or k >= len(rnd.q_top) or token.token_id is None:
        return None
    top = rnd.q_top[k]
    return top.index(token.token_id) + 1 if token.token_id in top else 0


def with_branches(rnd: Round) -> list[TokenEvent]:
    """The round's tokens with its lost branches in place (and a chain's discarded drafts after
    its rejected one); a branch whose path token the round does not show (a round cut at an end
    of generation) comes last."""
    groups = branches(rnd) if rnd.lost else []
    out: list[TokenEvent] = []
    placed: set[int] = set()
    for token in rnd.tokens:
        if groups and token.status in _WINNERS and token.position is not None:
            for i, (where, branch) in enumerate(groups):
                if where == token.position and i not in placed:
                    out.append(branch)
                    placed.add(i)
        out.append(token)
        if token.status is TokenStatus.REJECTED:
            out.extend(rnd.discarded)
            for i, (where, branch) in enumerate(groups):
                if where == BELOW_REJECTED:
                    out.append(branch)
                    placed.add(i)
    out.extend(branch for i, (_, branch) in enumerate(groups) if i not in placed)
    return out
