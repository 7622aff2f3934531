"""Screen 5 · draft, then verify: one round seen in its two phases, and the draft tokens of a Round.

Phase one shows the γ drafts undecided; phase two the verdicts, read left to right: accepted
drafts, the first rejection (then the corrected token) or, when all pass, the bonus token.
Each round emits accepted + 1 tokens, so progress is guaranteed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from specview.boundary.text import sanitize
from specview.kernel.events import Round, TokenEvent, TokenStatus

SHOWN_TEXT = 24  # characters of a token's text kept for a label


@dataclass(frozen=True, slots=True)
class DraftToken:
    """One drafted token of a round and what became of it."""

    text: str
    verdict: str  # accepted | rejected | discarded
    p: float | None
    q: float | None
    u: float | None = None  # the uniform draw it was judged with (none where p ≥ q, or unknown)


def label(text: str) -> str:
    """A token's text made safe and short for a one-cell-row label (spaces shown as ␣)."""
    shown = sanitize(text).replace("\n", "⏎").replace(" ", "␣")
    return shown[:SHOWN_TEXT] if shown else "∅"


def round_drafts(rnd: Round) -> list[DraftToken]:
    """The round's drafts in order: accepted, the rejected one, then the discarded ones (never verified)."""
    out = [
        DraftToken(label(t.text), t.status.value, t.p, t.q, t.u)
        for t in rnd.tokens
        if t.status in (TokenStatus.ACCEPTED, TokenStatus.REJECTED)
    ]
    out += [DraftToken(label(t.text), "discarded", t.p, t.q) for t in rnd.discarded]
    return out


def round_final(rnd: Round) -> TokenEvent:
    """The target's own token that ends the round: corrected, bonus or plain."""
    return next(t for t in reversed(rnd.tokens) if t.status not in (TokenStatus.ACCEPTED, TokenStatus.REJECTED))


def keep_probability(p: float | None, q: float | None) -> float | None:
    """min(1, p/q): the chance a draft is kept (None where p or q is unknown)."""
    if p is None or not q:
        return None
    return min(1.0, p / q)


def round_numbers(rnd: Round) -> dict[str, Any]:
    """One round as screen 5 teaches it: drafts with p, q, min(1, p/q), their draws u, verdicts;
    emitted = accepted + 1."""
    final = round_final(rnd)
    drafts = round_drafts(rnd)
    return {
        "index": rnd.index,
        "gamma": rnd.drafted,
        "drafts": [
            {"text": d.text, "p": d.p, "q": d.q, "keep": keep_probability(d.p, d.q), "u": d.u,
             "verdict": d.verdict}
            for d in drafts
        ],
        "accepted": rnd.accepted,
        "emitted": rnd.emitted,
        "final": {"text": label(final.text), "status": final.status.value, "p": final.p,
                  "residual_p": final.residual_p},
    }
