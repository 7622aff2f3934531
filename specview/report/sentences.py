"""A run's decisions and findings in words, in the reader's language: what `--gamma auto` chose and
why (kernel/gamma_choice.py), and what a tree would have had over a chain run's rejections
(kernel/what_if.py). The live view, `bench --table` and the stats JSON say them alike."""

from __future__ import annotations

from specview.kernel.gamma_choice import GammaChoice
from specview.kernel.what_if import WhatIf


def choice_text(choice: GammaChoice, lang: str) -> str:
    """The decision in words (`gammaauto.line`): why, the expected speedup at the chosen γ and the
    next best ones; only why while nothing was measured."""
    from specview.texts.catalog import fill

    why = fill(f"gammaauto.why.{choice.why}", lang, gamma=choice.gamma)
    if choice.expected is None:
        return why
    return fill("gammaauto.line", lang, why=why, expected=f"{choice.expected:.2f}", others=choice.others())


def what_if_lines(what_if: WhatIf, temperature: float | None, lang: str) -> list[str]:
    """The what-if line of a chain run (and, at T > 0, what its count means)."""
    from specview.texts.catalog import fill, text

    if not what_if.rejected:
        return [text("tree.what_if_none", lang)]
    share = f"{what_if.width3 / what_if.rejected:.0%}"
    line = fill("tree.what_if", lang, rejected=what_if.rejected, rank2=what_if.rank2, rank3=what_if.rank3,
                width2=what_if.width2, width3=what_if.width3, share3=share)
    return [line, text("tree.what_if_sampled", lang)] if temperature else [line]
