"""Screen 5's canned round: assumed p, q and draws chosen so one round shows every kind of verdict.

A draft with p ≥ q is kept without a draw (min(1, p/q) = 1); one with p < q is kept when its
uniform draw u falls below p/q and rejected otherwise. The simulator's q never sits between
those cases (it is a mix of p and mass off p's support, so p/q is 1 or 0), so when no live
round with its own p and q is at hand, this one stands in. The corrected token's probability
under norm(max(0, p − q)) is worked out from its own p and q and the residual mass (derived).
"""

from __future__ import annotations

from collections.abc import Sequence

from specview.kernel.events import Round, TokenEvent, TokenStatus

# (p, q, u) of each draft, assumed: kept at p ≥ q; kept by its draw; rejected by its draw; never verified.
DRAFTS: tuple[tuple[float | None, float, float | None], ...] = (
    (0.58, 0.41, None),
    (0.39, 0.52, 0.31),
    (0.11, 0.46, 0.68),
    (None, 0.57, None),
)
FIX_P, FIX_Q = 0.44, 0.08  # the corrected token under the target and the draft
RESIDUAL = 0.47  # Σ max(0, p − q) at the rejected position (1 − α there), assumed
WORDS = len(DRAFTS) + 1  # the drafts' texts, then the corrected token's


def canned_round(words: Sequence[str]) -> Round:
    """The canned round with these token texts (the drafts', then the corrected token's)."""
    if len(words) != WORDS:
        raise ValueError(f"the canned round needs {WORDS} token texts, got {len(words)}")
    tokens: list[TokenEvent] = []
    discarded: list[TokenEvent] = []
    for k, ((p, q, u), word) in enumerate(zip(DRAFTS, words, strict=False)):
        kept = p is not None and (u is None or u < p / q)
        if p is None:
            discarded.append(TokenEvent(None, word, TokenStatus.DISCARDED, k, None, q))
            continue
        status = TokenStatus.ACCEPTED if kept else TokenStatus.REJECTED
        tokens.append(TokenEvent(None, word, status, k, p, q, u=u))
        if not kept:
            fix = (FIX_P - FIX_Q) / RESIDUAL
            tokens.append(TokenEvent(None, words[-1], TokenStatus.CORRECTED, k, FIX_P, FIX_Q,
                                     residual=RESIDUAL, residual_p=fix))
    return Round(0, len(DRAFTS), tuple(tokens), None, None, 0.0, tuple(discarded))
