"""A real round from the simulator, for the screens that show one round when no live run is open."""

from __future__ import annotations

import threading
from functools import cache

from specview.backends.sim.backend import SimBackend
from specview.catalog.presets import DEFAULT_PRESET, get_preset
from specview.features.learn.explain.rounds import label
from specview.kernel.events import Round, TokenStatus, only_rounds

DEFAULT_SEED = 7
CONTEXT = 3  # cached tokens shown before the pending one


@cache
def sample_round(
    lang: str = "en", preset: str = DEFAULT_PRESET, seed: int = DEFAULT_SEED,
) -> tuple[tuple[str, ...], Round]:
    """The texts emitted before it and the first round (after a few) with a rejection, seeded."""
    backend = SimBackend(get_preset(preset), seed=seed, lang=lang, speed=0.0, max_rounds=200)
    before: list[str] = []
    last: Round | None = None
    for rnd in only_rounds(backend.rounds(threading.Event())):
        last = rnd
        rejected = any(t.status is TokenStatus.REJECTED for t in rnd.tokens)
        if rejected and len(before) > CONTEXT:
            break
        before += [t.text for t in rnd.tokens if t.emitted]
    assert last is not None
    return tuple(before), last


def split_context(before: tuple[str, ...] | list[str]) -> tuple[list[str], str]:
    """The cached tokens shown (labels) and the pending token: the last one emitted before the round."""
    if not before:
        return [], "∅"
    labels = [label(t) for t in before]
    return labels[-CONTEXT - 1 : -1], labels[-1]
