"""Where a figure on a Learn screen comes from, as a short tag in the screen's language: [cited], [derived]…"""

from __future__ import annotations

from specview.texts.catalog import text

KINDS = ("cited", "derived", "assumed", "measured", "illustrative")


def tag(kind: str, lang: str) -> str:
    """`[引用]` / `[cited]`: a provenance kind the catalog does not know reads as assumed (never guessed better)."""
    return text(f"learn.tag.{kind if kind in KINDS else 'assumed'}", lang)
