"""Secrets in a stream of rounds: a key a server reflects may arrive split across tokens and rounds.

`mask_rounds` masks a finished sequence at once (a Reconcile). `RoundMasker` masks a live
stream: it holds rounds back only while the text so far ends with the beginning of a secret
(usually not at all), and rewrites the tokens a secret spans so that the first carries `***`
and the rest lose their part of it. The Session applies it before any sink (screen,
recording, bench) sees a round, whenever a secret is registered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from specview.core.events import Round, TokenStatus
from specview.core.secrets import MASK


def _pattern(secrets: Iterable[str]) -> re.Pattern[str]:
    ordered = sorted(set(secrets), key=len, reverse=True)
    return re.compile("|".join(re.escape(s) for s in ordered))


def mask_texts(texts: list[str], pattern: re.Pattern[str]) -> list[str]:
    """`texts` (consecutive pieces of one text) with every secret in their join masked: the
    piece where a secret starts carries `***`, the pieces it spans lose their part of it."""
    joined = "".join(texts)
    spans = [m.span() for m in pattern.finditer(joined)]
    if not spans:
        return texts
    out: list[str] = []
    start = 0
    for text in texts:
        end = start + len(text)
        pieces: list[str] = []
        cursor = start
        for a, b in spans:
            if b <= cursor or a >= end:
                continue
            if a > cursor:
                pieces.append(joined[cursor:a])
            if a >= start:  # the secret starts in this piece
                pieces.append(MASK)
            cursor = min(b, end)
        pieces.append(joined[cursor:end])
        out.append("".join(pieces))
        start = end
    return out


def mask_rounds(rounds: list[Round], pattern: re.Pattern[str]) -> list[Round]:
    """The rounds with every secret in their tokens' text masked (across token boundaries), and in
    each round's discarded drafts (a draft run of their own, read on from the rejected draft)."""
    rounds = [_mask_discarded(rnd, pattern) if rnd.discarded else rnd for rnd in rounds]
    texts = [t.text for r in rounds for t in r.tokens]
    masked = mask_texts(texts, pattern)
    if masked is texts:
        return rounds
    out, at = [], 0
    for rnd in rounds:
        n = len(rnd.tokens)
        new = masked[at:at + n]
        tokens = tuple(t if t.text == s else replace(t, text=s) for t, s in zip(rnd.tokens, new, strict=True))
        out.append(rnd if tokens == rnd.tokens else replace(rnd, tokens=tokens))
        at += n
    return out


def _mask_discarded(rnd: Round, pattern: re.Pattern[str]) -> Round:
    rejected = [t.text for t in rnd.tokens if t.status is TokenStatus.REJECTED][:1]
    texts = rejected + [t.text for t in rnd.discarded]
    masked = mask_texts(texts, pattern)
    if masked is texts:
        return rnd
    new = masked[len(rejected):]
    return replace(rnd, discarded=tuple(t if t.text == s else replace(t, text=s)
                                        for t, s in zip(rnd.discarded, new, strict=True)))


class RoundMasker:
    """Masks secrets in a stream of rounds, holding back only what may begin one."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = sorted(set(secrets), key=len, reverse=True)
        self.pattern = _pattern(self.secrets)
        self._held: list[Round] = []

    def feed(self, rnd: Round) -> list[Round]:
        """The rounds that can be shown now (masked), in order; the rest is held."""
        held = mask_rounds([*self._held, rnd], self.pattern)
        text = "".join(t.text for r in held for t in r.tokens)
        keep = self._open_prefix(text)
        if keep == 0:
            self._held = []
            return held
        # Hold from the round where the open prefix begins.
        cut, offset = len(held), len(text)
        for i in range(len(held) - 1, -1, -1):
            offset -= sum(len(t.text) for t in held[i].tokens)
            cut = i
            if offset <= len(text) - keep:
                break
        self._held = held[cut:]
        return held[:cut]

    def flush(self) -> list[Round]:
        """The rounds still held (the stream ended or a reconcile comes)."""
        held, self._held = self._held, []
        return held

    def _open_prefix(self, text: str) -> int:
        """Length of the longest end of `text` that is a proper beginning of a secret (0: none)."""
        best = 0
        for secret in self.secrets:
            n = min(len(secret) - 1, len(text))
            tail = text[len(text) - n:] if n > 0 else ""
            # candidate starts are where the secret's first character stands: usually one find
            i = tail.find(secret[0]) if tail else -1
            while i != -1 and n - i > best:
                if secret.startswith(tail[i:]):
                    best = n - i
                    break
                i = tail.find(secret[0], i + 1)
        return best
