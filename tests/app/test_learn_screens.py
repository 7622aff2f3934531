"""Every Learn screen under run_test() in zh and en: each control moves the shown numbers, and they are
exactly the core function's output for the controls read back from the screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

import specview.features.learn.base as learn_base
from specview.features.learn.app import LearnApp
from specview.features.learn.base import LearnScreen
from specview.features.learn.explain.cache import rollback_numbers, round_rollback
from specview.features.learn.explain.cases import case_numbers
from specview.features.learn.explain.coupling import coupling_numbers
from specview.features.learn.explain.fusion import fusion_numbers
from specview.features.learn.explain.load import load_numbers
from specview.features.learn.explain.mask import mask_numbers
from specview.features.learn.explain.mtp import mtp_numbers
from specview.features.learn.explain.roofline import gpu_wait_numbers, verify_cost_numbers
from specview.features.learn.explain.rounds import round_numbers
from specview.features.learn.explain.speedup import speedup_numbers
from specview.features.learn.registry import lesson, lessons
from specview.texts.catalog import catalog, text
from specview.widgets.grid import Grid
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider

MISSING: list[tuple[str, str]] = []


@pytest.fixture(autouse=True)
def record_missing_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalog walker: every text a screen asks for must exist in the screen's language."""

    def checked(key: str, lang: str = "en") -> str:
        if key not in catalog(lang):
            MISSING.append((lang, key))
        return text(key, lang)

    monkeypatch.setattr(learn_base, "text", checked)


def values(screen: LearnScreen) -> dict[str, Any]:
    return {s.id: s.value for s in screen.query(Slider)}


def shown(screen: LearnScreen, widget_id: str) -> str:
    return str(screen.query_one(f"#{widget_id}", Static).render())


def grid_text(screen: LearnScreen) -> str:
    return "\n".join(str(g.render()) for g in screen.query(Grid))


# The core function called independently with the controls read back from the screen.
EXPECTED: dict[int, Callable[[Any], dict[str, Any]]] = {
    1: lambda s: gpu_wait_numbers(values(s)["chip"], values(s)["model"], s.local, s.host_bandwidth, None),
    2: lambda s: verify_cost_numbers(values(s)["chip"], values(s)["model"], values(s)["batch"], s.measured),
    3: lambda s: mask_numbers(s.context, s.pending, s.drafts, s.row),
    4: lambda s: {**(round_rollback(s.before, s.round) if values(s)["round"] == "real" else rollback_numbers(
        len(s.before) - 1, s.before[-4:-1], s.before[-1], s.drafts, values(s)["round"],
        s.ts("corrected") if values(s)["round"] < len(s.drafts) else s.ts("bonus"),
        "corrected" if values(s)["round"] < len(s.drafts) else "bonus")), "phase": s.phase},
    5: lambda s: {**round_numbers(s.current), "phase": s.phase, "rounds": s.metrics.snapshot().rounds,
                  "tau": s.metrics.snapshot().tau, "alpha": s.metrics.snapshot().acceptance_rate,
                  "preset": values(s)["preset"]},
    6: lambda s: {**coupling_numbers(values(s)["closeness"], values(s)["token"], sample=s.sampled, wrong=s.wrong),
                  "explain": ("trust", "coupling", "proof")[s.mode]},
    7: lambda s: mtp_numbers(s.step, values(s)["preset"]),
    8: lambda s: fusion_numbers(values(s)["variant"], values(s)["d_model"], values(s)["ratio"]),
    9: lambda s: case_numbers(values(s)["column"]),
    10: lambda s: speedup_numbers(values(s)["alpha"], values(s)["gamma"], values(s)["c"], values(s)["verify"]),
    11: lambda s: load_numbers(values(s)["chip"], values(s)["model"], values(s)["preset"], values(s)["batch"]),
}

# What must be on screen for given numbers: (how to read the screen, the formatted core value).
PROBES: dict[int, Callable[[LearnScreen, dict[str, Any]], list[tuple[str, str]]]] = {
    1: lambda s, n: [(shown(s, "numbers"), f"{n['ceiling_tps']:.4g} tok/s")],
    2: lambda s, n: [(shown(s, "numbers"), f"{n['verify_ratio'][-1]:.3f}×")],
    3: lambda s, n: [(shown(s, "numbers"), " ".join(n["selected_attends"]))],
    4: lambda s, n: [(shown(s, "numbers"), f"{n['emitted']} = {n['accepted']} + 1"),
                     (grid_text(s), n["steps"][n["phase"]]["slots"][-2]["label"] or " ")],
    5: lambda s, n: [(grid_text(s), n["drafts"][0]["text"]), (shown(s, "numbers"), f"{n['rounds']}")],
    6: lambda s, n: [(shown(s, "numbers"), f"{n['alpha']:.3f}"), (shown(s, "numbers"), f"{n['tv']:.3f}")]
    + ([(shown(s, "explain"), f"= {n['proof']['total']:.3f}")] if n["explain"] == "proof" else [])
    + ([(shown(s, "sampling"), f"{n['sampling']['chi_square']:.4g}")] if "sampling" in n else []),
    7: lambda s, n: [(shown(s, "numbers"), " ".join(f"{x:.2f}" for x in n["presets"][n["selected"]]["survival"][:8]))],
    8: lambda s, n: [(shown(s, "shapes"), f"W ({p['shape'][0]} × {p['shape'][1]})") for p in n["projections"]]
    or [(shown(s, "shapes"), str(n["d_model"]))],
    9: lambda s, n: [(grid_text(s), f"{c['speedup']:.2f}×") for c in n["columns"]],
    10: lambda s, n: [(shown(s, "numbers"), f"{n['expected_tau']:.3f}"), (shown(s, "numbers"), f"{n['speedup']:.3f}×"),
                      (shown(s, "numbers"), f"γ {n['best_gamma']} → {n['best_speedup']:.3f}×")],
    11: lambda s, n: [(shown(s, "numbers"), f"{n['speedup']:.3f}×")],
}
# Keys that are controls too (besides the sliders), pressed with the screen focused.
KEYS: dict[int, list[str]] = {3: ["up", "up"], 4: ["n", "n", "n", "n"], 5: ["n", "n", "n"], 6: ["t", "t", "s", "w"],
                              7: ["n", "n"]}


def check(screen: LearnScreen) -> dict[str, Any]:
    """The screen shows exactly the core numbers for its controls; returns them."""
    number = screen.lesson.number
    got = screen.numbers()
    assert got == EXPECTED[number](screen)
    for where, value in PROBES[number](screen, got):
        assert value in where, (number, value, where)
    return got


async def open_screen(pilot: Pilot[None]) -> LearnScreen:
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, LearnScreen)
    return screen


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("number", [item.number for item in lessons()])
async def test_screen_controls_move_the_core_numbers(number: int, lang: str) -> None:
    MISSING.clear()
    app = LearnApp(lesson(number), lang=lang)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(pilot)
        assert screen.query_one("#learn-idea", Prose).text == text(lesson(number).idea_key, lang)
        before = check(screen)
        for slider in list(screen.query(Slider)):
            slider.focus()
            at_end = slider.index == len(slider.values) - 1
            await pilot.press("left" if at_end else "right")
            await pilot.pause()
            now = check(screen)
            assert now != before, f"moving {slider.id} changed nothing"
            before = now
        if number == 3:
            screen.query_one(Grid).focus()
        for key in KEYS.get(number, []):
            await pilot.press(key)
            await pilot.pause()
            now = check(screen)
            assert now != before, f"{key} changed nothing"
            before = now
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LearnScreen)
    assert MISSING == []


def test_every_learn_key_is_in_both_languages_with_the_same_placeholders() -> None:
    import re
    import tomllib
    from importlib import resources

    folder = resources.files("specview") / "texts"
    en = tomllib.loads((folder / "learn.en.toml").read_text(encoding="utf-8"))
    zh = tomllib.loads((folder / "learn.zh.toml").read_text(encoding="utf-8"))
    assert sorted(en) == sorted(zh)
    field = re.compile(r"\{(\w+)")
    for key in en:
        assert sorted(set(field.findall(en[key]))) == sorted(set(field.findall(zh[key]))), key
