"""Learn tied to a run: f fills screen 10 from the live view, Enter/x on screen 9, g reads a GGUF, b measures."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from specview.catalog.preset_words import preset_words
from specview.features.learn import registry
from specview.features.learn.app import LearnApp
from specview.features.learn.cache_screen import CacheScreen
from specview.features.learn.explain.context import RunContext
from specview.features.learn.explain.roofline import gpu_wait_numbers
from specview.features.learn.explain.rounds import label, round_drafts
from specview.features.learn.fusion_screen import FusionScreen
from specview.features.learn.index_screen import LearnIndex
from specview.features.learn.lossless_screen import LosslessScreen
from specview.features.learn.mask_screen import MaskScreen
from specview.features.learn.memory_screen import MemoryScreen
from specview.features.learn.registry import lesson_named, lessons
from specview.features.learn.speedup_screen import SpeedupScreen
from specview.features.live.real_run_screen import RealRunScreen
from specview.features.live.screen import LiveScreen
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider
from tests.support.app_helpers import sim_app, wait_finished
from tests.support.gguf_factory import write_fusion_gguf
from tests.support.notices import notices


async def test_f_fills_the_calculator_with_the_live_runs_numbers() -> None:
    app = sim_app(max_rounds=80, seed=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        snap = app.live.session.metrics.snapshot()
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, LearnIndex)
        app.screen.query_one(OptionList).highlighted = [item.slug for item in lessons()].index("speedup")
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SpeedupScreen)
        await pilot.press("f")
        await pilot.pause()
        assert screen.measured is not None and screen.measured.alpha == snap.acceptance_rate
        sliders = {s.id: s.value for s in screen.query(Slider)}
        assert sliders["alpha"] == snap.acceptance_rate and sliders["gamma"] == 3  # exact, not the slider's step
        numbers = screen.numbers()
        taus = numbers["measured"]
        assert taus["tau_measured"] == snap.tau
        # one τ from the run's α: the calculator's and the "from its α" line are the same number
        assert numbers["expected_tau"] == taus["tau_iid"]
        shown = str(screen.query_one("#measured", Static).render())
        assert f"{snap.tau:.3f}" in shown and f"{taus['tau_iid']:.3f}" in shown
        assert f"{taus['tau_iid']:.3f}" in str(screen.query_one("#numbers", Static).render())


async def test_f_without_a_run_says_so() -> None:
    app = LearnApp(lesson_named("speedup"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, SpeedupScreen) and app.screen.measured is None
        said = [str(n.message).replace("\u00a0", " ") for n in notices(app)]
        # a simulated run is enough: the hint names plain `specview` first, the real models after
        assert any("specview alone runs the simulator" in m and "--demo" in m for m in said)


async def test_enter_runs_a_case_study_and_x_shows_the_engines() -> None:
    app = LearnApp(lesson_named("cases"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("right")  # the Gemma 4 column
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, RealRunScreen) and app.screen.preset.id == "gemma4-drafter"
        await pilot.press("escape")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, LiveScreen) and app.screen.backend.info.preset == "gemma4-drafter"


async def test_enter_in_the_live_app_switches_its_run() -> None:
    app = sim_app(max_rounds=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        app.open_lesson(lesson_named("cases"))
        await pilot.pause()
        await pilot.press("right", "right", "enter")  # GLM-5.2
        await pilot.pause()
        assert app.screen is app.live and app.live.backend.info.preset == "glm-5.2-mtp"


async def test_g_reads_the_fusion_tensors_of_the_loaded_gguf(tmp_path: Path) -> None:
    hostile = "\x1b[2Jblk.2.nextn.eh_proj.weight"
    path = write_fusion_gguf(tmp_path / "mtp.gguf", n_embd=64, extra_name=hostile)
    app = LearnApp(lesson_named("fusion"), run=RunContext(target_path=str(path)))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("g")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FusionScreen)
        found = screen.numbers()["gguf"]
        assert found["architecture"] == "qwen35" and found["n_embd"] == 64 and found["nextn_layers"] == 1
        shown = str(screen.query_one("#gguf", Static).render())
        assert "blk.1.nextn.eh_proj.weight  (64 × 128)  F32  ✓" in shown
        assert "\x1b" not in shown and "␛[2J" in shown


async def test_b_measures_this_machine_and_rates_the_local_run(tmp_path: Path) -> None:
    path = write_fusion_gguf(tmp_path / "m.gguf", n_embd=64)
    app = LearnApp(lesson_named("memory"), run=RunContext(target_path=str(path), tokens_per_second=40.0))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MemoryScreen) and screen.local is not None
        assert {s.id: s.value for s in screen.query(Slider)}["model"] == "local"
        await pilot.press("b")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.host_bandwidth is not None and screen.host_bandwidth > 0
        n = screen.numbers()
        assert n == gpu_wait_numbers("h100-sxm", "local", screen.local, screen.host_bandwidth, 40.0)
        assert n["local"]["share_of_ceiling"] == 40.0 / (screen.host_bandwidth / screen.local.weight_bytes)
        assert f"{n['local']['measured_tps']:.4g} tok/s" in str(screen.query_one("#local", Static).render())


async def test_t_opens_the_speedup_screen_filled_with_the_run() -> None:
    app = sim_app(max_rounds=40, seed=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        snap = app.live.session.metrics.snapshot()
        await pilot.press("t")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SpeedupScreen) and screen.measured is not None
        assert screen.numbers()["measured"]["tau_measured"] == snap.tau


async def test_l_shows_the_live_runs_last_round_in_the_mask_and_cache_screens() -> None:
    app = sim_app(max_rounds=12, seed=4)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        run = app.learn_context()
        assert run is not None and run.last_round is not None
        app.open_lesson(lesson_named("mask"))
        await pilot.pause()
        mask = app.screen
        assert isinstance(mask, MaskScreen) and mask.live
        assert mask.drafts == [d.text for d in round_drafts(run.last_round)]
        assert mask.pending == label(run.before_round[-1])
        await pilot.press("escape")
        app.open_lesson(lesson_named("cache"))
        await pilot.pause()
        assert isinstance(app.screen, CacheScreen) and app.screen.round is run.last_round


async def test_i_on_a_simulated_token_opens_learn_6_with_its_own_p_and_q() -> None:
    app = sim_app(max_rounds=10, seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        await pilot.press("i")
        await pilot.pause()
        assert not isinstance(app.screen, LosslessScreen)  # nothing selected yet
        await pilot.press("left")
        await pilot.press("i")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LosslessScreen) and screen.rows is None
        assert screen.run is not None and screen.run.token is not None
        assert f"{screen.run.token.p:.3f}" in screen.query_one(".learn-legend", Prose).text


async def test_the_live_views_links_follow_their_screens_when_the_numbers_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """A screen added in the middle renumbers the rest: t and i still open the speedup and lossless
    screens (they name them by slug), not whatever now holds their old numbers."""
    found = lessons()
    moved = tuple(sorted((replace(item, number=item.number % len(found) + 1) for item in found),
                         key=lambda item: item.number))  # each one number on, the last first
    monkeypatch.setattr(registry, "lessons", lambda: moved)
    assert registry.lesson(10).slug != "speedup" and registry.lesson(6).slug != "lossless"  # the numbers moved
    app = sim_app(max_rounds=10, seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_finished(pilot)
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, SpeedupScreen) and app.screen.lesson.number == 11
        await pilot.press("escape")
        await pilot.press("left")
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, LosslessScreen)


def test_a_slug_no_screen_declares_is_named() -> None:
    with pytest.raises(ValueError, match="'no-such-screen'"):
        lesson_named("no-such-screen")


async def test_x_on_a_zh_case_study_shows_the_preset_in_chinese() -> None:
    app = LearnApp(lesson_named("cases"), lang="zh")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        popup = app.screen
        assert isinstance(popup, RealRunScreen)
        shown = str(popup.query_one(Static).render())
        label, hardware = preset_words(popup.preset, "zh")
        assert shown.startswith(f"{label}\nγ ") and hardware in shown and "然后用它观察" in shown
        assert popup.preset.label not in shown and popup.preset.hardware not in shown
