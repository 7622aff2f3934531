"""Python's cyclic garbage collector, tuned for a screen that draws thousands of tokens a second.

Every line Textual draws is a Strip holding seven small caches, and each token a few objects: a
compare screen at 4 × 5,000 tok/s allocates hundreds of thousands of tracked objects a second.
With CPython's default thresholds (700, 10, 10) the youngest generation is collected every 700
allocations and the older ones walk the ~250k objects the views keep, which measured 40–45 ms of
every ~100 ms frame on the four-pane benchmark. Collecting the youngest generation every 20,000
allocations (and the others as often, relative to it, as before) keeps reference cycles bounded
all the same — most of what a frame allocates is freed by reference counting, not the collector —
and `gc.freeze()` once the first screen is up moves everything built at start-up (modules, styles,
widgets) out of every later walk.
"""

from __future__ import annotations

import gc

THRESHOLDS = (20_000, 20, 10)


def tune_collector() -> None:
    """Raise the thresholds (never lower ones a caller already raised)."""
    current = gc.get_threshold()
    gc.set_threshold(*(max(a, b) for a, b in zip(current, THRESHOLDS, strict=True)))


def freeze_startup() -> None:
    """Leave what exists now out of every later collection (call once the first screen is up)."""
    gc.collect()
    gc.freeze()
