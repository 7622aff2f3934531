"""The simulator's synthetic target p and draft q, and one round of verification, in plain Python.

At each position p puts most of its mass on the passage's next token and the rest on a few
alternatives that fit its place (words that follow the same word in the passage, or come before the
same word, of the same kind first: a guess that misses still reads as text); q = β·p + (1 − β)·r
with r off p's support, so the acceptance Σ min(p, q) is exactly β. Verification is Leviathan's
exact sampler (kernel/sampling.py) on these rows held sparse: p has at most four tokens and r two,
so a round touches a handful of floats instead of (γ + 1) rows of the whole vocabulary. It does the
same float operations in the same order as kernel/sampling.py does on the dense rows, and draws the
same uniforms from the same generator, so a seed gives exactly the rounds the dense sampler gives (bit for
bit: the sum of a residual row follows numpy's pairwise summation, `_numpy_sum`), which
tests/unit/backends/sim/test_sparse_verifier.py checks against kernel/sampling.py over thousands of
rounds. Flat out, the four-pane compare screen runs four of these in child processes on the UI's
machine: their CPU per token is what its throughput is made of.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate, pairwise

import numpy as np

from specview.kernel.event_build import token_event
from specview.kernel.events import TokenEvent, TokenStatus

_TARGET_WEIGHTS = np.array([0.92, 0.04, 0.025, 0.015])
_DRAFT_NOISE = np.array([0.6, 0.4])
_UNIFORMS = 1024  # uniforms drawn at a time: the same stream as one rng.random() per draw
_ACCEPTED, _REJECTED, _CORRECTED, _BONUS, _PLAIN, _DISCARDED = (
    TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS, TokenStatus.PLAIN,
    TokenStatus.DISCARDED)

Drawn = tuple[tuple[TokenEvent, ...], tuple[TokenEvent, ...], int]  # tokens, discarded, tokens emitted


class SimModel:
    """Per-token p and r rows for one passage, and a seeded generator for the draws."""

    def __init__(
        self, vocab: tuple[str, ...], passage: Sequence[int], acceptance: Sequence[float], temperature: float,
        seed: int,
    ) -> None:
        self.vocab = vocab
        self.acceptance = [float(a) for a in acceptance]
        self.gamma = len(acceptance)
        self.temperature = temperature
        self.rng = np.random.default_rng(seed)
        self.shapes = _Shapes(vocab, passage, self._target_weights(), self.rng)
        self._uniform = _uniforms(self.rng).__next__

    def _target_weights(self) -> np.ndarray:
        if self.temperature <= 0:
            return _TARGET_WEIGHTS
        w = _TARGET_WEIGHTS ** (1.0 / self.temperature)
        return np.asarray(w / w.sum())

    def verify(self, intended: Sequence[int], gamma: int | None = None, scale: float = 1.0) -> Drawn:
        """Draft γ tokens from q and verify them against p: one round (γ 0: a plain round).

        `intended` holds at least γ + 1 passage tokens (only the first γ + 1 are used); `scale`
        multiplies the acceptance (a drafter that decays with context).
        """
        gamma = self.gamma if gamma is None else gamma
        acceptance = self.acceptance if scale == 1.0 else [a * scale for a in self.acceptance]
        if self.temperature <= 0:
            return self._greedy(intended, gamma, acceptance)
        return self._sampling(intended, gamma, acceptance)

    def _greedy(self, intended: Sequence[int], gamma: int, acceptance: list[float]) -> Drawn:
        """kernel/sampling.verify_greedy on q = 0.2·p with 0.8 added at the draft."""
        shapes, vocab, uniform = self.shapes, self.vocab, self._uniform
        drafts = []
        for k in range(gamma):
            tok = intended[k]
            drafts.append(tok if uniform() < acceptance[k] else shapes.off[tok][0])
        tokens: list[TokenEvent] = []
        for k, draft in enumerate(drafts):
            row = shapes.p_row[intended[k]]
            target = shapes.argmax[intended[k]]
            px = row.get(draft, 0.0)
            qx = 0.2 * px + 0.8
            if draft == target:
                tokens.append(token_event(draft, vocab[draft], _ACCEPTED, k, px, qx))
                continue
            tokens.append(token_event(draft, vocab[draft], _REJECTED, k, px, qx))
            pt = row[target]
            tokens.append(token_event(target, vocab[target], _CORRECTED, k, pt, 0.2 * pt))
            discarded = []
            for j in range(k + 1, gamma):
                d = drafts[j]
                discarded.append(token_event(d, vocab[d], _DISCARDED, j, None,
                                             0.2 * shapes.p_row[intended[j]].get(d, 0.0) + 0.8))
            return tuple(tokens), tuple(discarded), k + 1
        bonus = shapes.argmax[intended[gamma]]
        tokens.append(token_event(bonus, vocab[bonus], _BONUS if gamma else _PLAIN, gamma,
                                  shapes.p_row[intended[gamma]][bonus], None))
        return tuple(tokens), (), gamma + 1

    def _sampling(self, intended: Sequence[int], gamma: int, acceptance: list[float]) -> Drawn:
        """kernel/sampling.verify_sampling on q = β·p + (1 − β)·r."""
        shapes, vocab, uniform = self.shapes, self.vocab, self._uniform
        drafts = []
        for k in range(gamma):
            # Draw from the mixture directly: same law as sampling q, without a pass over V.
            tok = intended[k]
            if uniform() < acceptance[k]:
                drafts.append(shapes.draw_support(tok, uniform()))
            else:
                drafts.append(shapes.draw_off(tok, uniform()))
        tokens: list[TokenEvent] = []
        for k, draft in enumerate(drafts):
            tok, beta = intended[k], acceptance[k]
            px = shapes.p_row[tok].get(draft, 0.0)
            qx = beta * px + (1.0 - beta) * shapes.r_row[tok].get(draft, 0.0)
            if qx <= 0.0:
                raise ValueError(f"draft token {draft} at position {k} has q = 0")
            if px >= qx:  # min(1, p/q) = 1: accepted without a draw
                tokens.append(token_event(draft, vocab[draft], _ACCEPTED, k, px, qx))
                continue
            u = uniform()
            if u < px / qx:
                tokens.append(token_event(draft, vocab[draft], _ACCEPTED, k, px, qx, False, u))
                continue
            tokens.append(token_event(draft, vocab[draft], _REJECTED, k, px, qx, False, u))
            tokens.append(self._corrected(tok, beta, k))
            discarded = []
            for j in range(k + 1, gamma):
                d, b = drafts[j], acceptance[j]
                t = intended[j]
                q = b * shapes.p_row[t].get(d, 0.0) + (1.0 - b) * shapes.r_row[t].get(d, 0.0)
                discarded.append(token_event(d, vocab[d], _DISCARDED, j, None, q))
            return tuple(tokens), tuple(discarded), k + 1
        bonus = shapes.sample_p(intended[gamma], uniform())
        tokens.append(token_event(bonus, vocab[bonus], _BONUS if gamma else _PLAIN, gamma,
                                  shapes.p_row[intended[gamma]].get(bonus, 0.0), None))
        return tuple(tokens), (), gamma + 1

    def _corrected(self, tok: int, beta: float, k: int) -> TokenEvent:
        """The target's token after a rejection: drawn from norm(max(0, p − q)) (from p where that is empty)."""
        shapes = self.shapes
        p_row, r_row = shapes.p_row[tok], shapes.r_row[tok]
        # p − q is positive only on p's support (r is off it); elsewhere max(0, ·) is 0 and adds nothing
        residual = []
        for x in shapes.p_ids[tok]:
            px = p_row[x]
            value = px - (beta * px + (1.0 - beta) * r_row.get(x, 0.0))
            if value > 0.0:
                residual.append((x, value))
        mass = _numpy_sum(residual, shapes.n_vocab)
        if mass > 0:
            fix = _sample([x for x, _ in residual], list(accumulate(v for _, v in residual)), self._uniform(),
                          shapes.n_vocab)
        else:
            fix = shapes.sample_p(tok, self._uniform())
        pf = p_row.get(fix, 0.0)
        qf = beta * pf + (1.0 - beta) * r_row.get(fix, 0.0)
        rf = max(pf - qf, 0.0)
        return token_event(fix, self.vocab[fix], _CORRECTED, k, pf, qf, False, None, mass,
                           rf / mass if mass > 0 else None)


def _uniforms(rng: np.random.Generator) -> Iterator[float]:
    """rng.random() draws, fetched in blocks (a block's values are the same stream, in order)."""
    while True:
        yield from rng.random(_UNIFORMS).tolist()


def _sample(ids: list[int], cdf: list[float], u: float, n_vocab: int) -> int:
    """kernel/sampling.sample on a row that is zero but at `ids` (ascending; `cdf` their running
    sum): zeros leave numpy's cumulative sum as it was, so the same token comes out."""
    index = bisect_right(cdf, u * cdf[-1])
    return ids[index] if index < len(ids) else n_vocab - 1


def _numpy_sum(entries: list[tuple[int, float]], n: int, start: int = 0) -> float:
    """What numpy's `.sum()` gives for a length-`n` row that is zero but at `entries` (index,
    value), indices ascending: its pairwise summation (8 accumulators over blocks of at most 128,
    halves above that), whose grouping decides the last bit; adding a zero changes nothing."""
    if n < 8:
        res = 0.0
        for _, v in entries:
            res += v
        return res
    if n <= 128:
        whole = start + n - n % 8  # the rest after the last multiple of 8 is added one by one
        r = [0.0] * 8
        for i, v in entries:
            if i < whole:
                r[(i - start) % 8] += v
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for i, v in entries:
            if i >= whole:
                res += v
        return res
    half = n // 2
    half -= half % 8
    low = [(i, v) for i, v in entries if i < start + half]
    high = [(i, v) for i, v in entries if i >= start + half]
    return _numpy_sum(low, half, start) + _numpy_sum(high, n - half, start + half)


def _hanzi(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def _kind(piece: str) -> tuple[bool, bool, bool]:
    """Coarse token class: leading space, alphanumeric, CJK."""
    body = piece.strip()
    return (piece[:1].isspace(), body.isalnum(), any(_hanzi(ch) for ch in body))


def _alternative(piece: str) -> bool:
    """Whether `piece` may be drawn in place of another token: anything but a one-hanzi word, which
    reads as noise in place of a word ("灯ˣ从ˣ"); every English piece may (its alternatives are unchanged)."""
    body = piece.strip()
    return not (len(body) == 1 and _hanzi(body))


def _neighbours(vocab: tuple[str, ...], passage: Sequence[int]) -> list[tuple[set[int], set[int]]]:
    """Per token, the words that fit in its place in the passage: those that follow a word it follows
    (after "the": "stairs", "lens", "glass"), and those that come before a word it comes before. The
    passage is read as the simulator runs it, round and round, and line breaks are not words: its
    first word follows its last sentence's end, as every sentence's first word does."""
    words = [t for t in passage if vocab[t].strip()]
    after: dict[int, set[int]] = {}  # a word → the words that follow it
    before: dict[int, set[int]] = {}  # a word → the words that come before it
    for prev, nxt in pairwise([*words, *words[:1]]):
        after.setdefault(prev, set()).add(nxt)
        before.setdefault(nxt, set()).add(prev)
    fits: list[tuple[set[int], set[int]]] = []
    for tok in range(len(vocab)):
        siblings = set().union(*(after[p] for p in before.get(tok, ())))
        co_before = set().union(*(before[n] for n in after.get(tok, ())))
        fits.append((siblings - {tok}, co_before - siblings - {tok}))
    return fits


def _alternatives(tok: int, fits: tuple[set[int], set[int]], same: list[int], words: list[int],
                  rng: np.random.Generator) -> list[int]:
    """Five distinct words other than `tok`, the likeliest stand-ins first. Words that follow the
    same word as `tok` come first, then words before the same word, both of `tok`'s kind (a word
    for a word, a hanzi for a hanzi), then the rest of its kind; only where its kind has too few
    (punctuation), words of other kinds that fit, then any word. Each group in a seeded order: a
    guess that misses still reads as text."""
    siblings, co_before = fits
    kind, allowed = set(same), set(words)  # never a lone hanzi, of any kind (_alternative)
    groups = (sorted(siblings & kind), sorted(co_before & kind), same,
              sorted((siblings - kind) & allowed), sorted((co_before - kind) & allowed), words)
    chosen: list[int] = []
    for group in groups:
        for i in rng.permutation(len(group)):
            w = group[int(i)]
            if w != tok and w not in chosen:
                chosen.append(w)
                if len(chosen) == 5:
                    return chosen
    return chosen


class _Shapes:
    """Per-token supports of p (target) and r (draft noise, disjoint from p's support)."""

    def __init__(
        self, vocab: tuple[str, ...], passage: Sequence[int], weights: np.ndarray, rng: np.random.Generator
    ) -> None:
        self.n_vocab = len(vocab)
        # Alternatives come from the passage's own words, of the same kind where possible, and are
        # words: a one-character hanzi word never stands in for another token.
        words = [i for i in sorted(set(passage)) if _alternative(vocab[i])]
        kinds: dict[tuple[bool, bool, bool], list[int]] = {}
        for i in words:
            kinds.setdefault(_kind(vocab[i]), []).append(i)
        fits = _neighbours(vocab, passage)
        self.support: list[list[int]] = []
        self.off: list[list[int]] = []
        self._support_cdf: list[list[float]] = []
        self._off_cdf: list[list[float]] = []
        # Sparse rows per intended token: p (target) and r (draft noise) as {token: probability};
        # p's tokens ascending, with their running sum (numpy's cumulative sum of the dense row).
        self.p_row: list[dict[int, float]] = []
        self.r_row: list[dict[int, float]] = []
        self.p_ids: list[list[int]] = []
        self._p_cdf: list[list[float]] = []
        self.argmax: list[int] = []  # the greedy target's token (the first of the most probable)
        for tok in range(self.n_vocab):
            same = kinds.get(_kind(vocab[tok]), words)
            chosen = _alternatives(tok, fits[tok], same, words, rng)
            alts, off = chosen[0::2], chosen[1::2]  # p's three and r's two share the best fits
            merged: dict[int, float] = {}  # fewer than three alternatives (a tiny passage): tok keeps the rest
            for t, w in zip([tok, *alts, tok, tok, tok][:4], weights, strict=True):
                merged[t] = merged.get(t, 0.0) + float(w)
            noise = (_DRAFT_NOISE[: len(off)] / _DRAFT_NOISE[: len(off)].sum()).tolist()
            self.support.append(list(merged))
            self.off.append(off)
            self._support_cdf.append(list(accumulate(merged.values())))
            self._off_cdf.append(list(accumulate(noise)))
            self.p_row.append(merged)
            self.r_row.append(dict(zip(off, noise, strict=True)))
            ids = sorted(merged)
            self.p_ids.append(ids)
            self._p_cdf.append(list(accumulate(merged[i] for i in ids)))
            self.argmax.append(max(ids, key=merged.__getitem__))

    def draw_support(self, tok: int, u: float) -> int:
        """A token from p's support at `tok`, with probability ∝ its weight (u uniform in [0, 1))."""
        cdf = self._support_cdf[tok]
        return self.support[tok][min(bisect_right(cdf, u * cdf[-1]), len(cdf) - 1)]

    def draw_off(self, tok: int, u: float) -> int:
        """A token from the draft's noise r at `tok` (off p's support)."""
        cdf = self._off_cdf[tok]
        return self.off[tok][min(bisect_right(cdf, u * cdf[-1]), len(cdf) - 1)]

    def sample_p(self, tok: int, u: float) -> int:
        """kernel/sampling.sample on p's row at `tok`."""
        return _sample(self.p_ids[tok], self._p_cdf[tok], u, self.n_vocab)
