"""Secrets in a stream of rounds: a key a server reflects may arrive split across tokens and rounds.

`mask_rounds` masks a finished sequence at once (a Reconcile). `RoundMasker` masks a live
stream: it holds rounds back only while the text so far ends with the beginning of a secret
(usually not at all), and rewrites the tokens a secret spans so that the first carries `***`
and the rest lose their part of it. The Session applies it before any sink (screen,
recording, bench) sees a round, whenever a secret is registered. A secret is found as
`mask` finds it: as a reader makes it out (boundary/lookalike.py), in any letter case or
compatibility form, with spaces, marks or invisible characters between its characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from specview.boundary.lookalike import folded, folded_with_origins
from specview.boundary.secrets import MASK, SecretPattern, core_of, secret_pattern
from specview.kernel.events import Round, TokenStatus

# what finds the secrets: the registered ones' pattern, or a plain regular expression (tests)
Finder = SecretPattern | re.Pattern[str]
_NEVER = re.compile(r"(?!)")  # no secret long enough to mask: nothing matches


def _spans(pattern: Finder, text: str) -> list[tuple[int, int]]:
    if isinstance(pattern, SecretPattern):
        return pattern.spans(text)
    return [m.span() for m in pattern.finditer(text)]


def mask_texts(texts: list[str], pattern: Finder) -> list[str]:
    """`texts` (consecutive pieces of one text) with every secret in their join masked: the
    piece where a secret starts carries `***`, the pieces it spans lose their part of it."""
    joined = "".join(texts)
    spans = _spans(pattern, joined)
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


def mask_rounds(rounds: list[Round], pattern: Finder) -> list[Round]:
    """The rounds with every secret in their tokens' text masked (across token boundaries), and in
    each round's discarded drafts (a draft run of their own, read on from the rejected draft)."""
    rounds = [_mask_discarded(rnd, pattern) if rnd.discarded else rnd for rnd in rounds]
    rounds = [_mask_lost(rnd, pattern) if rnd.lost else rnd for rnd in rounds]
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


def _mask_discarded(rnd: Round, pattern: Finder) -> Round:
    rejected = [t.text for t in rnd.tokens if t.status is TokenStatus.REJECTED][:1]
    texts = rejected + [t.text for t in rnd.discarded]
    masked = mask_texts(texts, pattern)
    if masked is texts:
        return rnd
    new = masked[len(rejected):]
    return replace(rnd, discarded=tuple(t if t.text == s else replace(t, text=s)
                                        for t, s in zip(rnd.discarded, new, strict=True)))


def _mask_lost(rnd: Round, pattern: Finder) -> Round:
    """A tree's lost branches, each read from where it left the path to its leaf (`lost_from`, as
    the token view draws them: kernel/lost_branches.py), or each token on its own where the round
    does not say how they hang together."""
    lost = rnd.lost
    texts = [t.text for t in lost]
    for chain, _ in rnd.lost_chains():
        masked = mask_texts([texts[i] for i in chain], pattern)
        for i, m in zip(chain, masked, strict=True):
            if m != lost[i].text:
                texts[i] = m  # a token on several branches: masked where any of them needed it
    out = tuple(t if m == t.text else replace(t, text=m) for t, m in zip(lost, texts, strict=True))
    return rnd if out == lost else replace(rnd, lost=out)


class RoundMasker:
    """Masks secrets in a stream of rounds, holding back only what may begin one."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.pattern: Finder = secret_pattern(secrets) or _NEVER
        # compared with the stream's text folded the same way (as a reader makes it out)
        self.secrets = sorted({f for s in secrets if (f := folded(core_of(s)))}, key=len, reverse=True)
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
        """Length of the longest end of `text` that may begin a secret (0: none): what a reader
        makes of it (boundary/lookalike.py) is a proper beginning of one."""
        if not self.secrets or len(self.secrets[0]) < 2:
            return 0
        need = len(self.secrets[0]) - 1  # folded characters that can matter
        window = need
        while True:  # the end of `text` that holds them (usually just `need` characters)
            piece = text[-window:]
            flat, origins = folded_with_origins(piece)
            if len(flat) >= need or window >= len(text):
                break
            window *= 4
        tail = flat[-need:]
        best = 0  # in folded characters; the longest maps to the earliest start
        for secret in self.secrets:
            n = min(len(secret) - 1, len(tail))
            end = tail[len(tail) - n:] if n > 0 else ""
            # candidate starts are where the secret's first character stands: usually one find
            i = end.find(secret[0]) if end else -1
            while i != -1 and n - i > best:
                if secret.startswith(end[i:]):
                    best = n - i
                    break
                i = end.find(secret[0], i + 1)
        if not best:
            return 0
        return len(piece) - origins[len(flat) - best]
