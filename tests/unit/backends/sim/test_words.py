"""The simulator's Chinese passage reads as text: a rejected or corrected token is a word of the
passage (two hanzi or more where the passage has a word), never a lone character of it."""

from __future__ import annotations

import threading

import pytest

from specview.backends.sim.backend import SimBackend, _vocabulary
from specview.backends.sim.model import _alternative
from specview.catalog.presets import load_presets
from specview.kernel.events import NOT_EMITTED, Round, TokenStatus


def hanzi(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def judged(preset: str, temperature: float, seed: int) -> list[tuple[str, str, TokenStatus]]:
    """(token, the passage's token at its place, status) for every rejected and corrected token of a zh run."""
    vocab, passage = _vocabulary("zh")
    backend = SimBackend(load_presets()[preset], seed=seed, lang="zh", speed=0.0, max_rounds=200,
                         temperature=temperature)
    out, emitted = [], 0
    for item in backend.rounds(threading.Event()):
        if not isinstance(item, Round):
            continue
        for token in item.tokens:
            intended = vocab[passage[emitted % len(passage)]]
            if token.status in (TokenStatus.REJECTED, TokenStatus.CORRECTED):
                out.append((token.text, intended, token.status))
            if token.status not in NOT_EMITTED:
                emitted += 1
    return out


@pytest.mark.parametrize(("preset", "temperature", "seed"), [("qwen3.6-mtp", 1.0, 3), ("ngram", 0.7, 11),
                                                             ("draft-model", 0.0, 5)])
def test_every_rejected_or_corrected_zh_token_is_a_word_of_the_passage(preset: str, temperature: float,
                                                                       seed: int) -> None:
    vocab, passage = _vocabulary("zh")
    words = {vocab[i] for i in passage}
    assert sum(hanzi(vocab[i]) and len(vocab[i]) >= 2 for i in passage) > 70  # the passage is in words
    found = judged(preset, temperature, seed)
    at_words = [(token, intended, status) for token, intended, status in found if hanzi(intended)]
    assert len(at_words) >= 10
    assert [token for token, _, _ in found if token not in words] == []
    # in place of a word of the passage: a word of two hanzi or more (or, corrected, the passage's own token)
    assert [(token, intended, status.value) for token, intended, status in at_words
            if token != intended and not (hanzi(token) and len(token) >= 2)] == []
    assert [token for token, intended, status in found if status is TokenStatus.REJECTED and token == intended] == []


def test_the_zh_passage_is_its_text_word_by_word() -> None:
    vocab, passage = _vocabulary("zh")
    assert "".join(vocab[i] for i in passage).startswith("灯塔看守人每天黄昏都会爬上楼梯。他点亮那盏大灯，")
    assert [vocab[i] for i in passage[:4]] == ["灯塔", "看守人", "每天", "黄昏"]


def test_every_english_piece_stays_an_alternative() -> None:
    """The English vocabulary is not filtered: every English piece may stand in for another."""
    vocab, passage = _vocabulary("en")
    assert all(_alternative(vocab[i]) for i in set(passage))
    assert not _alternative("灯") and _alternative("灯塔") and _alternative("，")
