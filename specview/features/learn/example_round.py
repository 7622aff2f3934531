"""The example round screens 3 and 4 show when no live run is open: screen 5's canned round (assumed p, q
and draws; explain/canned.py), its words a sentence that reads as one in the screen's language, after a few
words of context, so the drafts continue the text and the rejected one is a plausible wrong guess."""

from __future__ import annotations

from specview.features.learn.explain.canned import canned_round
from specview.features.learn.explain.rounds import label
from specview.kernel.events import Round
from specview.texts.catalog import fill

CONTEXT = 3  # cached tokens shown before the pending one


def example_round(lang: str = "en") -> tuple[tuple[str, ...], Round]:
    """The texts emitted before the round (`learn.round.example_before`) and the canned round
    (`learn.round.canned_words`)."""
    before = tuple(fill("learn.round.example_before", lang).split("|"))
    return before, canned_round(fill("learn.round.canned_words", lang).split("|"))


def split_context(before: tuple[str, ...] | list[str]) -> tuple[list[str], str]:
    """The cached tokens shown (labels) and the pending token: the last one emitted before the round."""
    if not before:
        return [], "∅"
    labels = [label(t) for t in before]
    return labels[-CONTEXT - 1 : -1], labels[-1]
