"""The built-in simulator: exact rejection sampling over synthetic p and q.

At each absolute position the target p puts most of its mass on the next token of a
bundled passage (so the stream reads like text) and the rest on a few alternatives.
The draft is q = β·p + (1 − β)·r with r supported off p's support, so the per-position
acceptance Σ min(p, q) is exactly β, the preset's value at that draft position. Rounds
are timed on a virtual clock from the preset's forward time and draft cost c.
"""

from __future__ import annotations

import re
import threading
import time
from bisect import bisect_right
from collections.abc import Iterator
from functools import cache
from importlib import resources
from itertools import accumulate

import numpy as np

from specview.backends.base import BackendError, BackendInfo
from specview.core.events import Round, TokenEvent, TokenStatus
from specview.core.presets import MAX_GAMMA, Preset
from specview.core.sampling import Verdict, verify_greedy, verify_sampling

_EN_TOKEN = re.compile(r"\s?[A-Za-z']+|\s?\d+|\s?[^\sA-Za-z\d]|\s+")
_TARGET_WEIGHTS = np.array([0.92, 0.04, 0.025, 0.015])
_DRAFT_NOISE = np.array([0.6, 0.4])
LANGS = ("en", "zh")


@cache
def _vocabulary(lang: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """One language's passage tokens (its vocabulary) and the passage as token ids."""
    source = resources.files("specview") / "texts" / f"passage.{lang}.txt"
    text = source.read_text(encoding="utf-8").strip() + "\n\n"
    pieces = _EN_TOKEN.findall(text) if lang == "en" else list(text)
    vocab = sorted(set(pieces))
    index = {p: i for i, p in enumerate(vocab)}
    return tuple(vocab), tuple(index[p] for p in pieces)


def detect_lang(prompt: str | None) -> str:
    """zh when the prompt contains CJK characters, else en."""
    if prompt and any("\u4e00" <= ch <= "\u9fff" for ch in prompt):
        return "zh"
    return "en"


class SimBackend:
    """Seeded simulator for one preset; the same seed gives the same run."""

    def __init__(
        self,
        preset: Preset,
        *,
        gamma: int | None = None,
        temperature: float | None = None,
        seed: int = 0,
        lang: str | None = None,
        prompt: str | None = None,
        speed: float = 1.0,
        max_rounds: int | None = None,
    ) -> None:
        self.preset = preset
        self.gamma = preset.gamma if gamma is None else gamma
        if not 1 <= self.gamma <= MAX_GAMMA:
            raise BackendError(f"gamma must be between 1 and {MAX_GAMMA}, got {self.gamma}")
        self.temperature = preset.temperature if temperature is None else temperature
        if not 0.0 <= self.temperature <= 5.0:
            raise BackendError(f"temperature must be between 0 and 5, got {self.temperature}")
        self.seed = seed
        self.lang = lang or detect_lang(prompt)
        if self.lang not in LANGS:
            raise BackendError(f"language must be one of {', '.join(LANGS)}, got {self.lang!r}")
        self.speed = speed
        self.max_rounds = max_rounds
        self.acceptance = np.array(preset.acceptance_at(self.temperature, self.gamma))
        self._info = BackendInfo(
            backend="sim",
            label=preset.id,
            gamma=self.gamma,
            temperature=self.temperature,
            preset=preset.id,
            seed=seed,
            virtual_clock=True,
            exact={"acceptance": True, "tau": True, "per_position": True},
            note="simulated: timing from the preset's model, not measured",
        )

    @property
    def info(self) -> BackendInfo:
        return self._info

    def close(self) -> None:
        """Nothing to release."""

    def rounds(self, stop: threading.Event) -> Iterator[Round]:
        vocab, passage = _vocabulary(self.lang)
        rng = np.random.default_rng(self.seed)
        shapes = _Shapes(vocab, sorted(set(passage)), self._target_weights(), rng)
        t_target = self.preset.target_ms / 1000.0
        t_draft = self.gamma * self.preset.c * t_target
        clock, position, index = 0.0, 0, 0
        due = time.monotonic()
        while not stop.is_set() and (self.max_rounds is None or index < self.max_rounds):
            intended = [passage[(position + k) % len(passage)] for k in range(self.gamma + 1)]
            verdict = self._verify(shapes, intended, rng)
            clock += t_draft + t_target
            tokens = tuple(
                TokenEvent(d.token_id, vocab[d.token_id], d.status, d.position, d.p, d.q)
                for d in verdict.decisions
            )
            yield Round(index, self.gamma, tokens, t_draft, t_target, clock)
            position += len(verdict.emitted_ids)
            index += 1
            if self.speed > 0:
                # Pace incrementally so a speed change takes effect at once; never build up debt.
                now = time.monotonic()
                due = max(due + (t_draft + t_target) / self.speed, now - 0.25)
                if due > now and stop.wait(due - now):
                    return

    def _target_weights(self) -> np.ndarray:
        if self.temperature <= 0:
            return _TARGET_WEIGHTS
        w = _TARGET_WEIGHTS ** (1.0 / self.temperature)
        return np.asarray(w / w.sum())

    def _verify(self, shapes: _Shapes, intended: list[int], rng: np.random.Generator) -> Verdict:
        p = shapes.p_rows[intended]  # (γ+1, V): one fancy index, no per-row work
        drafts: list[int] = []
        if self.temperature <= 0:
            q = 0.2 * p[:-1]
            for k in range(self.gamma):
                tok = intended[k]
                draft = tok if rng.random() < self.acceptance[k] else int(shapes.off[tok][0])
                q[k, draft] += 0.8
                drafts.append(draft)
            return verify_greedy(p, drafts, q)
        beta = self.acceptance[:, None]
        q = beta * p[:-1] + (1.0 - beta) * shapes.r_rows[intended[:-1]]
        for k in range(self.gamma):
            # Draw from the mixture directly: same law as sampling q, without a pass over V.
            tok = intended[k]
            if rng.random() < self.acceptance[k]:
                drafts.append(shapes.draw_support(tok, rng.random()))
            else:
                drafts.append(shapes.draw_off(tok, rng.random()))
        return verify_sampling(p, q, drafts, rng)


def _kind(piece: str) -> tuple[bool, bool, bool]:
    """Coarse token class: leading space, alphanumeric, CJK."""
    body = piece.strip()
    return (piece[:1].isspace(), body.isalnum(), any("\u4e00" <= ch <= "\u9fff" for ch in body))


class _Shapes:
    """Per-token supports of p (target) and r (draft noise, disjoint from p's support)."""

    def __init__(
        self, vocab: tuple[str, ...], language: list[int], weights: np.ndarray, rng: np.random.Generator
    ) -> None:
        n_vocab = self.n_vocab = len(vocab)
        # Alternatives come from the passage's own language, of the same kind where possible.
        kinds: dict[tuple[bool, bool, bool], list[int]] = {}
        for i in language:
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
            same = kinds.get(_kind(vocab[tok]), language)
            alts = [same[int(a)] for a in rng.integers(0, len(same), size=3)]
            merged: dict[int, float] = {}
            for t, w in zip([tok, *alts], weights, strict=True):
                merged[t] = merged.get(t, 0.0) + float(w)
            pool = same if len(same) >= 8 else language
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


def status_counts(verdict: Verdict) -> dict[TokenStatus, int]:
    """How many decisions of each status a verdict holds (used by tests)."""
    counts: dict[TokenStatus, int] = {}
    for d in verdict.decisions:
        counts[d.status] = counts.get(d.status, 0) + 1
    return counts
