"""One number everywhere: at every preset, what Learn screens 7, 9, 10 and 11 print for it equals what
`specview presets --json` and `specview calc` print, to the digits each one prints.

Screen 10 is opened headless with the preset picked on its slider and its printed lines are read back;
screens 9 and 11 print the same figures their `learn N --json --preset ID` gives (the registry's
`preset_numbers`), and `calc` is run at the α screen 10 shows. A preset with one α at a fixed depth
(GLM-5.2, DeepSeek-V3, EAGLE-3, …) is `calc` at that α to the last digit, best γ included; one whose
rounds draft a varying number (DSpark, suffix, n-gram) pays for the drafts it makes, as `presets` does.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from specview.catalog.presets import load_presets
from specview.cli import main
from specview.features.learn.app import LearnApp
from specview.features.learn.base import LearnScreen
from specview.features.learn.explain.mtp import mtp_numbers
from specview.features.learn.registry import lesson_named
from specview.widgets.slider import Slider
from tests.app.test_learn_consistency import presets_command, shown

PRESETS = sorted(load_presets())


def cli_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    """`specview ARGS` in this process, its stdout read as JSON."""
    capsys.readouterr()
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def one_alpha_fixed_depth(preset_id: str) -> bool:
    """Eq. 1 is the preset's own model: one acceptance at every position, every round drafting γ."""
    p = load_presets()[preset_id]
    return len(set(p.acceptance_at(p.temperature))) == 1 and p.mean_drafted() == p.gamma


async def screen_10_at(preset_id: str, lang: str) -> tuple[dict[str, Any], str, str, dict[str, Any]]:
    """Screen 10 with `preset_id` picked on its slider: its numbers, its printed lines, its preset line and
    its sliders' values."""
    app = LearnApp(lesson_named("speedup"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LearnScreen)
        picker = screen.query_one("#preset", Slider)
        picker.focus()
        while picker.value != preset_id:
            await pilot.press("right")
        await pilot.pause()
        sliders = {s.id: s.value for s in screen.query(Slider)}
        return screen.numbers(), shown(screen, "numbers"), shown(screen, "preset_line"), sliders


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_screen_10_prints_every_presets_own_numbers_as_presets_calc_and_screens_7_9_11_do(
        lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    listed = presets_command()
    on_7 = {row["id"]: row for row in mtp_numbers()["presets"]}
    for preset_id in PRESETS:
        numbers, printed, preset_line, sliders = await screen_10_at(preset_id, lang)
        want = listed[preset_id]
        # the sliders hold the preset's exact numbers, not their steps
        assert (sliders["gamma"], sliders["c"]) == (want["gamma"], want["c"]), preset_id
        assert numbers["alpha"] == sliders["alpha"] and numbers["c"] == want["c"], preset_id
        # τ and speedup: the digits `specview presets` gives, printed on the screen and in its preset line
        assert f"{want['tau']:.3f}" in printed and f"τ {want['tau']:.3f}" in preset_line, preset_id
        assert f"{want['speedup']:.4f}×" in printed, (preset_id, printed)
        assert f"{on_7[preset_id]['tau']:.3f}" == f"{want['tau']:.3f}", preset_id  # screen 7's τ column
        # `learn 10 --json --preset ID` is what the screen shows
        headless = cli_json(["learn", "10", "--json", "--preset", preset_id], capsys)
        assert headless == json.loads(json.dumps(numbers)), preset_id
        # `calc` at the α the screen shows gives its τ at the preset's γ; with Eq. 1 the preset's own model,
        # its speedup and best γ too, to calc's four digits
        calc = cli_json(["calc", "--alpha", repr(numbers["alpha"]), "--gamma", str(want["gamma"]),
                         "--c", repr(want["c"]), "--json"], capsys)
        assert f"{calc['expected_tau']:.4f}" == f"{want['tau']:.4f}", preset_id
        if one_alpha_fixed_depth(preset_id):
            assert f"{calc['speedup']:.4f}×" in printed, (preset_id, printed)
            assert f"γ {calc['best_gamma']} → {calc['best_speedup']:.4f}×" in printed, (preset_id, printed)
        # screen 11 at batch 1 (verifying costs one forward there) and screen 9 where the preset has a column
        at_11 = cli_json(["learn", "11", "--json", "--preset", preset_id], capsys)
        assert at_11["batch"] == 1 and f"{at_11['speedup']:.3f}" == f"{want['speedup']:.3f}", preset_id
        assert f"{at_11['tau']:.2f}" == f"{want['tau']:.2f}", preset_id
        on_9 = {c["preset"]: c for c in lesson_named("cases").numbers("en")["columns"]}
        if preset_id in on_9:
            at_9 = cli_json(["learn", "9", "--json", "--preset", preset_id], capsys)
            column = at_9["columns"][at_9["selected"]]
            assert column["preset"] == preset_id
            assert (f"{column['tau']:.2f}", f"{column['speedup']:.2f}") == (
                f"{want['tau']:.2f}", f"{want['speedup']:.2f}"), preset_id


async def test_glm_5_2_on_screen_10_is_the_articles_numbers() -> None:
    """The issue's own example: τ 5.470 at γ 7, 4.0519×, best γ 12 → 4.3812× (calc at α 0.887637…)."""
    numbers, printed, _, sliders = await screen_10_at("glm-5.2-mtp", "zh")
    assert "5.470" in printed and "4.0519×" in printed and "γ 12 → 4.3812×" in printed
    assert sliders["alpha"] == pytest.approx(0.887637, abs=1e-6) and numbers["expected_tau"] == pytest.approx(5.47)


async def test_moving_a_slider_leaves_the_preset_and_snaps_to_a_step() -> None:
    app = LearnApp(lesson_named("speedup"), lang="en")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        picker = app.screen.query_one("#preset", Slider)
        picker.focus()
        while picker.value != "glm-5.2-mtp":
            await pilot.press("right")
        await pilot.pause()
        alpha = app.screen.query_one("#alpha", Slider)
        assert alpha.value == pytest.approx(0.887637, abs=1e-6)
        alpha.focus()
        await pilot.press("left")
        await pilot.pause()
        assert alpha.value == 0.88 and picker.value == ""  # a step, and the sliders' own numbers from now on
        screen = app.screen
        assert isinstance(screen, LearnScreen)
        assert "preset" not in screen.numbers() and not screen.query_one("#preset_line").display


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_screens_9_and_11_print_every_presets_tau_and_speedup_as_presets_does(lang: str) -> None:
    listed = presets_command()
    app = LearnApp(lesson_named("load"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        picker = app.screen.query_one("#preset", Slider)
        picker.select(picker.values[0], notify=True)  # from the first preset on: right walks them all
        await pilot.pause()
        seen = set()
        for _ in picker.values:
            screen = app.screen
            assert isinstance(screen, LearnScreen)
            want, printed = listed[picker.value], shown(screen, "numbers")
            assert screen.numbers()["batch"] == 1  # one forward verifies at batch 1: `presets`' own speedup
            assert f"{want['speedup']:.3f}×" in printed and f"τ {want['tau']:.2f}" in printed, (picker.value, printed)
            seen.add(picker.value)
            picker.focus()
            await pilot.press("right")
            await pilot.pause()
        assert seen == set(PRESETS)
    app = LearnApp(lesson_named("cases"), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        grid = str(app.screen.query_one("#cases").render())
        for column in lesson_named("cases").numbers(lang)["columns"]:
            want = listed[column["preset"]]
            assert f"{want['speedup']:.2f}×" in grid and f"{want['tau']:.2f}" in grid, column["preset"]
