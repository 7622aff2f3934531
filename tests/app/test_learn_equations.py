"""What Learn screens 7 and 9 print, read back off the screen: screen 7's τ equation adds up for every preset (the
printed terms to the printed total, to the printed digits), each row is captioned by what that method's numbers
are, and nothing wraps at 80×24; screen 9 reports the article's gains beside Theorem 3.8 and never counts an input as
a figure that failed to reproduce."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from textual.widgets import Static

from specview.catalog.presets import load_presets
from specview.features.learn.app import LearnApp
from specview.features.learn.registry import lesson_named
from specview.texts.catalog import text
from specview.widgets.grid import Grid
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider

NUMBER = re.compile(r"\d+\.\d+")
CHAIN_KINDS = ("chain", "tree", "parallel")


def kind_of(preset_id: str) -> str:
    p = load_presets()[preset_id]
    if p.match_rate is not None:
        return "mixture"
    if p.shape.depth is not None:
        return "verify-length" if p.shape.block is not None else "variable-depth"
    return "parallel" if p.method == "medusa" else "tree" if p.shape.branches > 1 else "chain"


def pairs(static: Static) -> dict[str, str]:
    """`label  value` lines of a pairs Static, by label."""
    out = {}
    for line in str(static.render()).replace("\u00a0", " ").splitlines():
        label, _, value = line.partition("  ")
        out[label.strip()] = value.strip()
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_screen_7_prints_an_equation_that_adds_up_for_every_preset(lang: str) -> None:
    app = LearnApp(lesson_named("mtp"), lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        slider = screen.query_one("#preset", Slider)
        for index, preset_id in enumerate(screen.preset_ids):
            slider.select(index, notify=True)
            await pilot.pause()
            kind = kind_of(preset_id)
            static = screen.query_one("#numbers", Static)
            shown = pairs(static)
            assert static.size.height == len(shown), (preset_id, "a value wrapped onto its own line")
            terms_label = text(f"learn.mtp.row.s.{kind}" if kind in CHAIN_KINDS else
                               "learn.mtp.row.r.mixture" if kind == "mixture" else "learn.mtp.row.r.depth", lang)
            terms = [Decimal(x) for x in NUMBER.findall(shown[terms_label])]
            tau = shown["τ"]
            total, *rest = [Decimal(x) for x in NUMBER.findall(tau.split("(")[0].split("（")[0])]
            shown_sum, tail = rest[0], rest[1:]  # "= 1 + Σ … ≈ 1 + <sum> [+ <tail> (k 8–γ)]"
            assert shown_sum == sum(terms), preset_id  # the row adds up to the sum the equation prints
            assert 1 + shown_sum + sum(tail) == total.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP), preset_id
            assert f"{load_presets()[preset_id].tau_at(load_presets()[preset_id].temperature):.3f}" in tau
            # captions: "P(1…k pass)" only where every round drafts γ; the reach named where the length varies
            assert (text("learn.mtp.row.s.chain", lang) in shown) == (kind in ("chain", "tree")), preset_id
            if kind not in CHAIN_KINDS:
                assert text(f"learn.mtp.row.d.{kind}", lang) in shown, preset_id
            grid = screen.query_one(Grid)
            assert grid.size.height == len(grid.row_labels) + 1  # the header row does not wrap either


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_screen_7_marks_medusas_chain_as_an_assumed_upper_bound(lang: str) -> None:
    app = LearnApp(lesson_named("mtp"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        screen.query_one("#preset", Slider).select(screen.preset_ids.index("medusa"), notify=True)
        await pilot.pause()
        shown = pairs(screen.query_one("#numbers", Static))
        assumed = text("learn.tag.assumed", lang)
        assert shown[text("learn.mtp.row.a.parallel", lang)].endswith(assumed)  # 0.56 0.57 0.62 0.75: not a fact
        assert shown["τ"].startswith("≤ 2.230")
        about = screen.query_one("#about", Prose).text
        assert "0.56 0.32 0.20 0.15 0.12" in about and ("nested" in about if lang == "en" else "嵌套" in about)
        assert ("especially on code" if lang == "en" else "在代码方面尤其出色") in " ".join(
            p.text for p in screen.query(Prose))


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_screen_9_reports_the_articles_gains_and_counts_inputs_as_inputs(lang: str) -> None:
    app = LearnApp(lesson_named("cases"), lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        grid = app.screen.query_one(Grid)
        rows = dict(zip(grid.row_labels, grid.cells, strict=True))
        reported = [c.text for c in rows[text("learn.cases.row.reported", lang)]]
        assert reported[0] == "2.2–2.4×"  # Qwen 3.6, third party
        assert "≤ 3×" in reported[1] and "Apple 2.2×" in reported[1]  # Gemma 4, the vendor
        by = [c.text for c in rows[text("learn.cases.row.reported_by", lang)]]
        assert by[0].startswith(text("learn.cases.tag.independent", lang)) and by[1].startswith(
            text("learn.cases.tag.vendor", lang))
        sources = rows[text("learn.cases.row.sources", lang)][0].text
        assert sources == text("learn.cases.list_sep", lang).join(
            text(f"learn.cases.tag.{t}", lang) for t in ("independent", "vendor"))
        assert ("、" in sources and "," not in sources) if lang == "zh" else ", " in sources
        claims = [c.text for c in rows[text("learn.cases.row.claims", lang)]]
        assert claims[0] == text("learn.cases.list_sep", lang).join(
            [text("learn.cases.claims.input", lang).format(n=4), text("learn.cases.claims.bound", lang).format(n=1)])
        assert not any(("reproduced" if lang == "en" else "复现") in c for c in claims)  # nothing here is a check
        drawn = str(grid.render())
        assert "…" not in drawn and grid.size.height == len(grid.row_labels) + 1
        if lang == "en":
            assert "embeds, h, KV cache  embeds" in drawn  # two spaces between columns: the cells do not run on
        about = app.screen.query_one("#about", Prose).text
        assert "1/64" in about  # the article's cost of Qwen's NextN block
        await pilot.press("right")
        await pilot.pause()
        about = app.screen.query_one("#about", Prose).text
        assert "gemma-4-31B-it-assistant" in about and "assistant_model" in about
