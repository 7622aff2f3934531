"""The simulator's synthetic target p and draft q (numpy), and one round of verification.

At each position p puts most of its mass on the passage's next token and the rest on a few
alternatives of the same kind; q = β·p + (1 − β)·r with r off p's support, so the acceptance
Σ min(p, q) is exactly β. Verification is the exact sampler of specview.kernel.sampling.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

import numpy as np

from specview.kernel.sampling import Verdict, verify_greedy, verify_sampling

_TARGET_WEIGHTS = np.array([0.92, 0.04, 0.025, 0.015])
_DRAFT_NOISE = np.array([0.6, 0.4])


class SimModel:
    """Per-token p and r rows for one passage, and a seeded generator for the draws."""

    def __init__(
        self, vocab: tuple[str, ...], language: list[int], acceptance: Sequence[float], temperature: float,
        seed: int,
    ) -> None:
        self.acceptance = np.array(acceptance)
        self.gamma = len(acceptance)
        self.temperature = temperature
        self.rng = np.random.default_rng(seed)
        self.shapes = _Shapes(vocab, language, self._target_weights(), self.rng)

    def _target_weights(self) -> np.ndarray:
        if self.temperature <= 0:
            return _TARGET_WEIGHTS
        w = _TARGET_WEIGHTS ** (1.0 / self.temperature)
        return np.asarray(w / w.sum())

    def verify(self, intended: list[int], gamma: int | None = None, scale: float = 1.0) -> Verdict:
        """Draft γ tokens from q and verify them against p: one round (γ 0: a plain round).

        `intended` holds at least γ + 1 passage tokens (only the first γ + 1 are used); `scale`
        multiplies the acceptance (a drafter that decays with context).
        """
        shapes, rng = self.shapes, self.rng
        gamma = self.gamma if gamma is None else gamma
        acceptance = self.acceptance if scale == 1.0 else self.acceptance * scale
        intended = intended[: gamma + 1]
        p = shapes.p_rows[intended]  # (γ+1, V): one fancy index, no per-row work
        drafts: list[int] = []
        if gamma == 0:
            return verify_greedy(p, drafts) if self.temperature <= 0 else verify_sampling(p, None, drafts, rng)
        if self.temperature <= 0:
            q = 0.2 * p[:-1]
            for k in range(gamma):
                tok = intended[k]
                draft = tok if rng.random() < acceptance[k] else int(shapes.off[tok][0])
                q[k, draft] += 0.8
                drafts.append(draft)
            return verify_greedy(p, drafts, q)
        beta = acceptance[:gamma, None]
        q = beta * p[:-1] + (1.0 - beta) * shapes.r_rows[intended[:-1]]
        for k in range(gamma):
            # Draw from the mixture directly: same law as sampling q, without a pass over V.
            tok = intended[k]
            if rng.random() < acceptance[k]:
                drafts.append(shapes.draw_support(tok, rng.random()))
            else:
                drafts.append(shapes.draw_off(tok, rng.random()))
        return verify_sampling(p, q, drafts, rng)


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


class _Shapes:
    """Per-token supports of p (target) and r (draft noise, disjoint from p's support)."""

    def __init__(
        self, vocab: tuple[str, ...], language: list[int], weights: np.ndarray, rng: np.random.Generator
    ) -> None:
        n_vocab = self.n_vocab = len(vocab)
        # Alternatives come from the passage's own language, of the same kind where possible, and
        # are words: a one-character hanzi word never stands in for another token.
        words = [i for i in language if _alternative(vocab[i])]
        kinds: dict[tuple[bool, bool, bool], list[int]] = {}
        for i in words:
            kinds.setdefault(_kind(vocab[i]), []).append(i)
        self.support: list[np.ndarray] = []
        self.weights: list[np.ndarray] = []
        self.off: list[np.ndarray] = []
        self.off_weights: list[np.ndarray] = []
        self._support_cdf: list[list[float]] = []
        # Dense rows per intended token: p (target) and r (draft noise), so a round is two gathers.
        self.p_rows = np.zeros((n_vocab, n_vocab))
        self.r_rows = np.zeros((n_vocab, n_vocab))
        self._off_cdf: list[list[float]] = []
        for tok in range(n_vocab):
            # Alternatives of the same kind (a word for a word, a hanzi for a hanzi) read well.
            same = kinds.get(_kind(vocab[tok]), words)
            alts = [same[int(a)] for a in rng.integers(0, len(same), size=3)]
            merged: dict[int, float] = {}
            for t, w in zip([tok, *alts], weights, strict=True):
                merged[t] = merged.get(t, 0.0) + float(w)
            pool = same if len(same) >= 8 else words
            candidates = [pool[int(i)] for i in rng.permutation(len(pool))[:8] if pool[int(i)] not in merged]
            off = candidates[:2]
            self.support.append(np.array(list(merged), dtype=np.intp))
            self.weights.append(np.array(list(merged.values())))
            self.off.append(np.array(off, dtype=np.intp))
            self.off_weights.append(_DRAFT_NOISE[: len(off)] / _DRAFT_NOISE[: len(off)].sum())
            self.p_rows[tok, self.support[-1]] = self.weights[-1]
            self.r_rows[tok, self.off[-1]] = self.off_weights[-1]
            self._support_cdf.append(list(accumulate(self.weights[-1].tolist())))
            self._off_cdf.append(list(accumulate(self.off_weights[-1].tolist())))

    def draw_support(self, tok: int, u: float) -> int:
        """A token from p's support at `tok`, with probability ∝ its weight (u uniform in [0, 1))."""
        cdf = self._support_cdf[tok]
        return int(self.support[tok][min(bisect_right(cdf, u * cdf[-1]), len(cdf) - 1)])

    def draw_off(self, tok: int, u: float) -> int:
        """A token from the draft's noise r at `tok` (off p's support)."""
        cdf = self._off_cdf[tok]
        return int(self.off[tok][min(bisect_right(cdf, u * cdf[-1]), len(cdf) - 1)])
