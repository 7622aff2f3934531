"""The token inspector's line: what happened to the selected token, in the chosen language.

What is worth saying depends on the status. An accepted draft passed the test u < min(1, p/q)
(or needed no draw, p ≥ q); a rejected one failed it; a corrected token was drawn from the
residual norm(max(0, p − q)), so its own min(1, p/q) means nothing — the residual mass 1 − α at
that position and the token's probability in the residual do; a bonus token was drawn from p.
Greedy decoding has no draws: a draft is kept when it is the target's argmax.
"""

from __future__ import annotations

from specview.boundary.text import sanitize
from specview.kernel.events import Q_TOP, TokenEvent, TokenStatus
from specview.texts.catalog import fill, text

JOIN = " · "
TOKEN_CHARS = 200  # of the token's text (a token from a server may be megabytes)
_DRAFTS = (TokenStatus.ACCEPTED, TokenStatus.REJECTED)


def describe(token: TokenEvent, lang: str = "en", *, greedy: bool = False) -> str:
    """One line about a token: its text, status and position, then what decided it."""
    parts = [repr(sanitize(token.text, TOKEN_CHARS)), text(f"token.{token.status.name.lower()}", lang)]
    if token.position is not None:
        parts.append(fill("token.position", lang, n=token.position + 1))
    parts += _verdict(token, lang, greedy)
    if token.q_rank is not None:  # where the draft's q was known: how far down it the token was
        parts.append(fill("tree.q_rank", lang, rank=token.q_rank) if token.q_rank
                     else fill("tree.q_rank_below", lang, n=Q_TOP))
    if token.inferred:
        parts.append(text("token.inferred", lang))
    return JOIN.join(parts)


def _verdict(token: TokenEvent, lang: str, greedy: bool) -> list[str]:
    status, p, q = token.status, token.p, token.q
    if status is TokenStatus.LOST:  # a tree branch, said by its first token (kernel/lost_branches.py)
        return _lost(token, lang, greedy)
    if status in (TokenStatus.DISCARDED, TokenStatus.UNDECIDED):  # the target has not judged it (yet)
        shown = [text("inspect.never_verified", lang)] if status is TokenStatus.DISCARDED else []
        return shown + ([fill("token.q", lang, q=f"{q:.3f}")] if q is not None else [])
    if p is None:  # a remote server tells statuses, not probabilities
        return []
    if greedy:
        return _greedy(status, lang)
    if status in _DRAFTS:
        out = [fill("token.p", lang, p=f"{p:.3f}")]
        if q:
            ratio = min(1.0, p / q)
            out += [fill("token.q", lang, q=f"{q:.3f}"), fill("token.ratio", lang, ratio=f"{ratio:.3f}")]
            if token.u is not None:
                key = "inspect.draw_kept" if status is TokenStatus.ACCEPTED else "inspect.draw_refused"
                out.append(fill(key, lang, u=f"{token.u:.3f}"))
            elif status is TokenStatus.ACCEPTED and p >= q:
                out.append(text("inspect.kept", lang))
        return out
    if status is TokenStatus.CORRECTED:
        out = []
        if token.residual is not None:
            out.append(fill("inspect.residual", lang, mass=f"{token.residual:.3f}"))
        if token.residual_p is not None:
            out.append(fill("inspect.residual_p", lang, p=f"{token.residual_p:.3f}"))
        return out or [fill("token.p", lang, p=f"{p:.3f}")]
    return [fill("token.p", lang, p=f"{p:.3f}"), text("inspect.drawn_from_p", lang)]  # bonus, plain


def _lost(token: TokenEvent, lang: str, greedy: bool) -> list[str]:
    """A lost branch: whether the target judged its first token (beside the path) or never did
    (below a rejected node), and that token's p and q."""
    p, q = token.p, token.q
    if p is None:
        out = [text("tree.lost_unjudged", lang)]
    elif greedy:
        out = [text("tree.lost_judged", lang), text("inspect.argmax_mismatch", lang)]
    else:
        out = [text("tree.lost_judged", lang), fill("token.p", lang, p=f"{p:.3f}")]
    return out + ([fill("token.q", lang, q=f"{q:.3f}")] if q is not None and not greedy else [])


def _greedy(status: TokenStatus, lang: str) -> list[str]:
    if status is TokenStatus.ACCEPTED:
        return [text("inspect.argmax_match", lang)]
    if status is TokenStatus.REJECTED:
        return [text("inspect.argmax_mismatch", lang)]
    return [text("inspect.target_argmax", lang)]
