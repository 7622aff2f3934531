"""A text cut into tokens and rounds anyhow, passed through the stream mask: what the screen would show."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from specview.boundary.stream_mask import RoundMasker
from specview.kernel.events import Round, TokenEvent, TokenStatus


def plain_rounds(pieces: list[list[str]]) -> list[Round]:
    """One plain round per list of token texts."""
    return [Round(i, 0, tuple(TokenEvent(None, t, TokenStatus.PLAIN) for t in texts), None, None, float(i))
            for i, texts in enumerate(pieces)]


def masked(text: str, cuts: Sequence[int], per_round: int, secret: str) -> tuple[list[Round], int]:
    """`text` cut into tokens at `cuts`, `per_round` tokens a round, through a RoundMasker for `secret`:
    the rounds it lets out (flushed at the end), and how many rounds went in."""
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    tokens = [text[a:b] for a, b in pairwise(points)]
    grouped = [tokens[i:i + per_round] for i in range(0, len(tokens), per_round)]
    masker = RoundMasker([secret])
    out: list[Round] = []
    for rnd in plain_rounds(grouped):
        out += masker.feed(rnd)
    out += masker.flush()
    return out, len(grouped)
