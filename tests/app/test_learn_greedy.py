"""Learn 6's greedy paragraph: the general explanation, or the user's own last `specview diff` verdict."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from specview.features.diff.last import save
from specview.features.diff.model import DEFECT, NUMERICS, Cause, DiffResult, Divergence, Emitted, Margin
from specview.features.learn.app import LearnApp
from specview.features.learn.registry import lesson
from specview.texts.catalog import text
from specview.widgets.prose import Prose


def _verdict(cause: Cause) -> DiffResult:
    a, b = Emitted(6974, "Write", 20, "plain"), Emitted(54973, "Purchase", 8, "accepted")
    return DiffResult("ref", "spec", 20, Divergence(20, a, b, "…", by_text=False), Margin(1.0, 0.83, 0.17), cause)


async def _greedy_text(lang: str) -> str:
    app = LearnApp(lesson(6), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        return app.screen.query_one("#greedy", Prose).text


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_without_a_diff_the_general_explanation(lang: str) -> None:
    assert not Path(os.environ["SPECVIEW_DIFF_LAST"]).exists()
    assert await _greedy_text(lang) == text("learn.lossless.greedy", lang)


async def test_the_users_numbers_after_a_diff() -> None:
    cause = Cause(NUMERICS, batch_width=5, position=18, logit_shift=0.2098, batched=Margin(0.9, 0.94, 0.04))
    save(_verdict(cause), "gemma-3-270m-q4_k_m.gguf")
    shown = await _greedy_text("en")
    assert "(gemma-3-270m-q4_k_m.gguf)" in shown and "at token 21" in shown
    assert "a batch of 5 tokens shifted the logits by 0.210: kernel numerics" in shown
    assert "5 个 token 的批次使 logit 偏移了 0.210" in await _greedy_text("zh")
    save(_verdict(Cause(DEFECT, defect_at=20)), "m.gguf")
    assert "from token 21 on even the target's greedy on the same batches differs" in await _greedy_text("en")
