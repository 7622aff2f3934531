"""A guess that misses still reads as text: the simulator's alternatives at a token (what the
target may sample instead, and the draft's wrong guesses) are words that fit its place in the
passage — they follow the same word there, or come before the same word — where the passage has
two such words of the token's kind, not words drawn from anywhere in it."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from specview.backends.sim.backend import _vocabulary
from specview.backends.sim.model import SimModel, _alternative, _kind


def fitting(vocab: tuple[str, ...], passage: tuple[int, ...], tok: int) -> set[int]:
    """Words that follow a word `tok` follows, or come before a word `tok` comes before, in the passage
    as the simulator runs it: round and round, line breaks left out."""
    words = [t for t in passage if vocab[t].strip()]
    pairs = list(pairwise([*words, words[0]]))
    before = {p for p, n in pairs if n == tok}
    after = {n for p, n in pairs if p == tok}
    return {n for p, n in pairs if p in before} | {p for p, n in pairs if n in after}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("seed", [0, 7, 11])
def test_the_first_alternatives_fit_the_place(lang: str, seed: int) -> None:
    vocab, passage = _vocabulary(lang)
    shapes = SimModel(vocab, passage, [0.8], 1.0, seed).shapes
    checked = 0
    for tok in sorted(set(passage)):
        fits = {w for w in fitting(vocab, passage, tok) - {tok}
                if _kind(vocab[w]) == _kind(vocab[tok]) and _alternative(vocab[w])}  # no lone hanzi
        if len(fits) < 2:
            continue
        first_p = next(w for w in shapes.support[tok] if w != tok)  # p's likeliest alternative
        assert (vocab[first_p], vocab[shapes.off[tok][0]]) in {(vocab[a], vocab[b]) for a in fits for b in fits}, \
            (vocab[tok], [vocab[w] for w in fits])
        checked += 1
    assert checked > 40  # most of the passage's words have such neighbours


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_first_word_has_sentence_starts_for_alternatives(lang: str) -> None:
    """The passage's first word (the first a user sees) stands beside the words that begin its other
    sentences, not beside words drawn from anywhere (at its place, "boat lighthouse keeper")."""
    vocab, passage = _vocabulary(lang)
    shapes = SimModel(vocab, passage, [0.8], 1.0, 7).shapes
    first = passage[0]
    starts = {n for p, n in pairwise(passage) if vocab[p].strip() in {".", "。"}}
    assert len(starts) >= 5
    assert set(shapes.support[first][1:]) | set(shapes.off[first]) <= starts, \
        [vocab[w] for w in (*shapes.support[first], *shapes.off[first])]


def test_the_rows_are_still_distributions_off_each_other() -> None:
    """p's four weights sum to one; r's two are off p's support (acceptance Σ min(p, q) stays β)."""
    vocab, passage = _vocabulary("en")
    shapes = SimModel(vocab, passage, [0.5], 1.0, 3).shapes
    for tok in set(passage):
        assert np.isclose(sum(shapes.p_row[tok].values()), 1.0) and len(shapes.p_row[tok]) == 4
        assert len(shapes.off[tok]) == 2 and not set(shapes.off[tok]) & set(shapes.p_row[tok])


@pytest.mark.parametrize("seed", [0, 7, 11])
def test_no_lone_hanzi_stands_in_for_any_token(seed: int) -> None:
    """Punctuation takes words of other kinds that fit; a one-character hanzi word is never one of them."""
    vocab, passage = _vocabulary("zh")
    shapes = SimModel(vocab, passage, [0.8], 1.0, seed).shapes
    for tok in set(passage):
        stand_ins = [w for w in (*shapes.support[tok], *shapes.off[tok]) if w != tok]
        assert all(_alternative(vocab[w]) for w in stand_ins), (vocab[tok], [vocab[w] for w in stand_ins])
