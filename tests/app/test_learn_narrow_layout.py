"""Learn 7–11 at 80×24 in zh and en: no formula, reference or command broken across lines, and the footer
leaves out whole keys (F1 lists them all) instead of cutting one."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.pilot import Pilot

from specview.compat.textual_compat import FooterKey
from specview.features.learn.app import LearnApp
from specview.features.learn.footer import LearnFooter
from specview.features.learn.registry import lesson
from specview.widgets.grid import Grid
from specview.widgets.prose import Prose

# Terms the texts of these screens bind with no-break spaces: each must come out on one line.
TERMS = (
    "τ / (γc + v)", "τ / (γc + v_B(γ+1))", "1 + Σ S_k", "m·(1 + Σ S_k) + (1 − m)", "Eq. 1", "Theorem 3.8",
    "Corollary 3.9", "式 1", "定理 3.8", "推论 3.9", "pip install 'specview-tui[llama,demo]'", "specview --demo",
    "specview --target FILE.gguf", "--target FILE.gguf", "specview sweep gamma --demo",
    "specview sweep load --on URL --off URL", "specview learn 8 --demo", "specview learn 8 --target FILE.gguf",
    "W·z = Σ W_i z_i", "W_i = W_j", "i ∈ H∪T", "Gemma 3 270M", "B·(γ+1)", "Leviathan et al. 2022", "Leviathan 等 2022",
)


async def composed_keys(pilot: Pilot[None], footer: LearnFooter) -> list[FooterKey]:
    """The footer's keys once it has recomposed for its width (it does after each resize)."""
    for _ in range(100):
        keys = list(footer.query(FooterKey))
        if any(k.action.endswith("help") for k in keys) and all(k.region.width for k in keys):
            return keys
        await pilot.pause()
    return list(footer.query(FooterKey))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("number", [7, 8, 9, 10, 11])
async def test_nothing_is_cut_mid_term_at_80x24(number: int, lang: str) -> None:
    app = LearnApp(lesson(number), lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        checked = 0
        for prose in app.screen.query(Prose):
            if not prose.display:
                continue
            source = prose.text.replace("\u00a0", " ")
            lines = [strip.text for strip in prose.render_lines(Region(0, 0, prose.size.width, prose.size.height))]
            assert all("\u00a0" not in line for line in lines)  # drawn as plain spaces: a copied command runs
            for term in TERMS:
                if term in source:
                    checked += 1
                    assert any(term in line for line in lines), (number, lang, term, lines)
        assert checked or number == 7  # screen 7's terms are in its diagrams and table, not in prose
        for grid in app.screen.query(Grid):  # a cell too narrow for its words would end in "…"
            assert "…" not in str(grid.render()), (number, lang)
        footer = app.screen.query_one(LearnFooter)
        keys = await composed_keys(pilot, footer)
        assert any(k.action.endswith("help") for k in keys)
        assert all(k.region.right <= footer.region.right for k in keys)
        plain = [k for k in keys if not k.has_class("-command-palette")]
        palette = [k for k in keys if k.has_class("-command-palette")]
        if palette:
            assert all(k.region.right <= palette[0].region.x for k in plain)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_crowded_footer_leaves_out_whole_keys_that_f1_lists(lang: str) -> None:
    app = LearnApp(lesson(9), lang=lang)
    async with app.run_test(size=(60, 24)) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(LearnFooter)
        shown = {k.action.rpartition(".")[2] for k in await composed_keys(pilot, footer)}
        # the ways to move stay (esc, pgup/pgdn, l, F1); q (on every screen) and the screen's own keys go first
        assert {"help", "pop_screen", "learn", "next_lesson"} <= shown and "quit" not in shown
        assert all(k.region.right <= footer.region.right for k in footer.query(FooterKey))
