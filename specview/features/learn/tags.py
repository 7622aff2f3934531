"""Where a figure on a Learn screen comes from, as a short tag in the screen's language: [cited], [derived]…
and, for a live run's numbers, the word the gauges use for their origin (measured, simulated, recorded)."""

from __future__ import annotations

from specview.kernel.backend import Origin
from specview.texts.catalog import text

KINDS = ("cited", "derived", "assumed", "measured", "illustrative")


def tag(kind: str, lang: str) -> str:
    """`[引用]` / `[cited]`: a provenance kind the catalog does not know reads as assumed (never guessed better)."""
    return text(f"learn.tag.{kind if kind in KINDS else 'assumed'}", lang)


def origin_word(origin: Origin | None, lang: str) -> str:
    """The gauges' word for where a run's numbers come from (`origin.measured`, `origin.simulated`,
    `origin.recorded`), passed with the run (RunContext.origin); no run's origin reads as assumed."""
    return text(f"origin.{'assumed' if origin is None else origin.value}", lang)
