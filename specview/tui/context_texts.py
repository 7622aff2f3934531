"""Acceptance by context position in words: what the context chart draws, in the chosen language.

Pure (no widgets), like tui/gauges.py: the numbers come from the snapshot's buckets
(kernel/context_acceptance.py) and are formatted here, the widget only draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from specview.boundary.text import number
from specview.kernel.context_acceptance import MIN_VERIFIED
from specview.kernel.gauges import Reading, compact_count
from specview.texts.catalog import fill


@dataclass(frozen=True, slots=True)
class ContextTexts:
    """One column per bucket (its α, two places), the span in words, the decay line."""

    values: tuple[float | None, ...]
    caption: str
    mark: str
    decayed: bool


def context_texts(reading: Reading, lang: str) -> ContextTexts:
    ctx = reading.snap.context
    if ctx is None or not ctx.buckets:
        return ContextTexts((), "", "", False)
    prompt = reading.info.prompt_tokens
    values = tuple(None if b.alpha is None else round(b.alpha, 2) for b in ctx.buckets)
    offset = prompt or 0
    span = {"start": compact_count(offset + ctx.buckets[0].start), "end": compact_count(offset + ctx.buckets[-1].end),
            "width": compact_count(ctx.width), "prompt": compact_count(prompt) if prompt is not None else ""}
    caption = fill("context.span" if prompt is not None else "context.span_output", lang, **span)
    decay = ctx.decay()
    if decay is None:
        return ContextTexts(values, caption, fill("context.waiting", lang, n=MIN_VERIFIED), False)
    numbers = {"first": number(decay.first.alpha, ".2f"), "last": number(decay.last.alpha, ".2f"),
               "z": "∞" if math.isinf(decay.z) else f"{decay.z:.1f}"}
    mark = fill("context.decay" if decay.detected else "context.steady", lang, **numbers)
    return ContextTexts(values, caption, mark, decay.detected)
