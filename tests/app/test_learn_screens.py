"""Every Learn screen under run_test() in zh and en: each control moves the shown numbers, and they are
the values worked out here again from each lesson's formula for the controls read back from the screen."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

import specview.features.learn.base as learn_base
from specview.catalog.hardware import accelerator, model_shape
from specview.catalog.presets import load_presets
from specview.features.learn.app import LearnApp
from specview.features.learn.base import LearnScreen
from specview.features.learn.explain.cases import COLUMNS
from specview.features.learn.explain.coupling import FAR_Q, TARGET_P
from specview.features.learn.registry import lesson, lessons
from specview.kernel.events import TokenStatus
from specview.kernel.theory import MAX_GAMMA
from specview.texts.catalog import catalog, text
from specview.widgets.grid import Grid
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider
from specview.widgets.token_view import TokenView

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


Checks = list[tuple[str, Any, Any]]  # (what, the screen's number, the value it must have)


def close(value: float, within: float = 1e-12) -> Any:
    """`value` as a float compares: to rounding, or to the digits of a hand calculation (`within`)."""
    return pytest.approx(value, rel=1e-9, abs=within)


# Independent values: each lesson's numbers worked out again in this file from the formula the lesson
# teaches, with the controls read back from the screen's sliders and state (never from the numbers
# themselves) and the raw figures (datasheets, preset files) as the only shared input: never by calling
# the function the screen calls.
def forward_s(chip: Any, shape: Any, tokens: int) -> float:
    """Roofline time of a forward over `tokens` tokens: max(weight bytes ÷ bandwidth, 2·params·tokens ÷ FLOP/s)."""
    read = shape.active_params * shape.bits / 8 / chip.bandwidth
    return read if chip.bf16_flops is None else max(read, 2 * shape.active_params * tokens / chip.bf16_flops)


def chained_tau(acceptance: list[float]) -> float:
    """1 + Σ_k Π_{i≤k} a_i: the bonus, plus each draft that is reached and passes."""
    return 1 + sum(math.prod(acceptance[:k]) for k in range(1, len(acceptance) + 1))


def preset_tau(preset_id: str) -> tuple[Any, float]:
    """A preset's τ: the chain's, or for a mixture (n-gram) m·chain + (1 − m), a round without a match giving 1."""
    preset = load_presets()[preset_id]
    chain, m = chained_tau(preset.acceptance_at(preset.temperature)), preset.match_rate
    return preset, chain if m is None else m * chain + 1 - m


def memory(s: LearnScreen, n: dict[str, Any]) -> Checks:
    chip, shape = accelerator(values(s)["chip"]), model_shape(values(s)["model"])
    ridge = None if chip.bf16_flops is None else chip.bf16_flops / chip.bandwidth
    intensity = 2 / (shape.bits / 8)  # 2 FLOPs per weight, each weight read once per token
    return [("ceiling_tps", n["ceiling_tps"], close(chip.bandwidth / (shape.active_params * shape.bits / 8))),
            ("intensity", n["intensity"], close(intensity)), ("ridge", n["ridge"], ridge),
            ("compute_busy", n["compute_busy"], None if ridge is None else close(min(1, intensity / ridge)))]


def verify(s: LearnScreen, n: dict[str, Any]) -> Checks:
    chip, shape, batch = accelerator(values(s)["chip"]), model_shape(values(s)["model"]), values(s)["batch"]
    ratios = [forward_s(chip, shape, k * batch) / forward_s(chip, shape, batch) for k in range(1, 17)]
    # the bend: 2·n ÷ (bits/8) FLOP per byte reaches the ridge FLOP/s ÷ B/s
    bend = None if chip.bf16_flops is None else chip.bf16_flops / chip.bandwidth * shape.bits / 8 / 2
    return [("verify_ratio", n["verify_ratio"], [close(r) for r in ratios]), ("bend_tokens", n["bend_tokens"],
            None if bend is None else close(bend))]


def mask(s: Any, n: dict[str, Any]) -> Checks:
    labels, cached = [*s.context, s.pending, *s.drafts], len(s.context)
    return [("mask", n["mask"], [[int(k <= i) for k in range(len(labels))] for i in range(len(labels))]),
            ("attends", n["selected_attends"], labels[: s.row + 1]),  # causal: itself and everything before
            # the pending row scores draft 1, draft j's row draft j + 1, the last row the bonus
            ("scores", n["selected_scores"], s.row - cached + 1 if s.row >= cached else None),
            ("scored_is_masked", n["scored_is_masked"], True)]  # a row never sees the draft it scores


PHASE_NAMES = ("start", "draft", "write", "verdict", "rollback", "commit")


def cache(s: Any, n: dict[str, Any]) -> Checks:
    choice = values(s)["round"]
    a = s.round.accepted if choice == "real" else choice
    gamma, kept = s.round.drafted, len(s.before) - 1  # the last committed token is pending, not cached
    lengths = (kept, kept, kept + gamma + 1, kept + gamma + 1, kept + a + 1, kept + a + 1)
    rollback = n["steps"][PHASE_NAMES.index("rollback")]
    return [("accepted", n["accepted"], a), ("emitted", n["emitted"], a + 1), ("removed", n["removed"], gamma - a),
            ("phases", [step["phase"] for step in n["steps"]], list(PHASE_NAMES)),
            ("cache_len", [step["cache_len"] for step in n["steps"]], list(lengths)),
            # llama_memory_seq_rm(mem, 0, n + a + 1, −1): nothing to remove when every draft passed
            ("seq_rm", rollback["seq_rm"], [kept + a + 1, -1] if a < gamma else None), ("phase", n["phase"], s.phase)]


def round_(s: Any, n: dict[str, Any]) -> Checks:
    rnd, shown = s.current, s.query_one(TokenView).tokens
    accepted = sum(t.status is TokenStatus.ACCEPTED for t in rnd.tokens)
    verdicts = [d["verdict"] for d in n["drafts"]]
    rounds = sum(t.status in (TokenStatus.CORRECTED, TokenStatus.BONUS, TokenStatus.PLAIN) for t in shown)
    keep = [None if d["p"] is None or not d["q"] else close(min(1, d["p"] / d["q"])) for d in n["drafts"]]
    return [("accepted", n["accepted"], accepted), ("emitted", n["emitted"], accepted + 1),
            ("verdicts", verdicts, sorted(verdicts, key=["accepted", "rejected", "discarded"].index)),
            ("keep", [d["keep"] for d in n["drafts"]], keep), ("gamma", n["gamma"], rnd.drafted),
            # the totals of the rounds shown so far: each ends with one token of the target's own
            ("rounds", n["rounds"], rounds), ("preset", n["preset"], values(s)["preset"])] + (
        [("tau", n["tau"], close(sum(t.emitted for t in shown) / rounds))] if rounds else [])


def lossless(s: Any, n: dict[str, Any]) -> Checks:
    t, x = values(s)["closeness"], values(s)["token"]
    p = list(TARGET_P)
    q = [(1 - t) * f + t * a for a, f in zip(p, FAR_Q, strict=True)]
    alpha = sum(min(a, b) for a, b in zip(p, q, strict=True))
    out = [("q", n["q"], [close(v) for v in q]), ("alpha", n["alpha"], close(alpha)),
           ("tv", n["tv"], close(1 - alpha)),  # ½ Σ |p − q| = 1 − Σ min(p, q)
           ("proof", n["proof"]["total"], close(p[x])),  # lossless: P(emit x) = p(x)
           ("accept_term", n["proof"]["accept_term"], close(min(p[x], q[x]))),
           ("explain", n["explain"], ("trust", "coupling", "proof")[s.mode]), ("sampled", "sampling" in n, s.sampled)]
    if s.sampled:  # the right sampler draws p (a χ² test passes); resampling from p on a rejection does not
        out.append(("passes", n["sampling"]["passes"], not s.wrong))
    return out


def mtp(s: Any, n: dict[str, Any]) -> Checks:
    preset = list(load_presets().values())[values(s)["preset"]]
    a = preset.acceptance_at(preset.temperature)
    row = n["presets"][n["selected"]]
    return [("selected", (n["selected"], row["id"], n["step"]), (values(s)["preset"], preset.id, s.step)),
            ("survival", row["survival"], [close(math.prod(a[:k])) for k in range(1, len(a) + 1)]),
            ("tau", row["tau"], close(preset_tau(preset.id)[1]))]


FUSION_MAPS = {  # (out, in) of each projection for d_model d, draft ratio r: concat the inputs, then project
    "medusa": lambda d, r: [],  # the heads read h alone: nothing to fuse
    "eagle": lambda d, r: [(d, 2 * d)],  # fc over [h; e]
    "eagle3": lambda d, r: [(d, 3 * d), (d, 2 * d)],  # three layers folded to one, then joined with e
    "in-trunk": lambda d, r: [(d, 2 * d)],  # eh_proj, (n_embd, 2·n_embd) in a GGUF
    "gemma4": lambda d, r: [(int(d * r), 2 * d)],  # a narrower drafter of width r·d
}


def fusion(s: LearnScreen, n: dict[str, Any]) -> Checks:
    maps = FUSION_MAPS[values(s)["variant"]](values(s)["d_model"], values(s)["ratio"])
    return [("shapes", [tuple(p["shape"]) for p in n["projections"]], maps),
            ("params", n["params"], sum(rows * cols for rows, cols in maps))]


def cases(s: LearnScreen, n: dict[str, Any]) -> Checks:
    out: Checks = [("selected", n["selected"], values(s)["column"])]
    for column, preset_id in zip(n["columns"], COLUMNS, strict=True):
        preset, tau = preset_tau(preset_id)
        out.append((preset_id, column["speedup"], close(tau / (preset.gamma * preset.c + 1))))  # Theorem 3.8
    return out


def speedup(s: LearnScreen, n: dict[str, Any]) -> Checks:
    a, g, c, v = (values(s)[k] for k in ("alpha", "gamma", "c", "verify"))

    def at(gamma: int) -> float:
        return sum(a**k for k in range(gamma + 1)) / (gamma * c + v)  # τ = 1 + α + … + α^γ (Eq. 1)

    best = max(range(1, MAX_GAMMA + 1), key=lambda gamma: (round(at(gamma), 9), -gamma))
    return [("tau", n["expected_tau"], close(sum(a**k for k in range(g + 1)))), ("speedup", n["speedup"], close(at(g))),
            ("best", (n["best_gamma"], n["best_speedup"]), (best, close(at(best))) if at(best) > 1 else (0, 1.0)),
            ("curve", n["curve_speedup"], [close(at(gamma)) for gamma in range(1, 17)])]


def load(s: LearnScreen, n: dict[str, Any]) -> Checks:
    chip, shape, batch = accelerator(values(s)["chip"]), model_shape(values(s)["model"]), values(s)["batch"]
    preset, tau = preset_tau(values(s)["preset"])

    def at(b: int) -> float:  # τ / (γc + v_B(γ+1)), v_B(k) = t(B·k) ÷ t(B)
        v = forward_s(chip, shape, b * (preset.gamma + 1)) / forward_s(chip, shape, b)
        return tau / (preset.gamma * preset.c + v)

    crossover = next((b for b in range(1, 4097) if at(b) < 1), None)
    return [("speedup", n["speedup"], close(at(batch))), ("crossover", n["crossover_batch"], crossover)]


INDEPENDENT: dict[int, Callable[[LearnScreen, dict[str, Any]], Checks]] = {
    1: memory, 2: verify, 3: mask, 4: cache, 5: round_, 6: lossless, 7: mtp, 8: fusion, 9: cases, 10: speedup,
    11: load,
}

# At the default controls, the same numbers worked out by hand from the figures in the sources.
AT_DEFAULTS: dict[int, Callable[[dict[str, Any]], Checks]] = {
    # H100 SXM 3.35 TB/s ÷ (8e9 weights × 2 bytes) = 209.375 tok/s; ridge 989 TFLOP/s ÷ 3.35 TB/s = 295.2 FLOP/B
    1: lambda n: [("ceiling_tps", n["ceiling_tps"], close(209.375)), ("ridge", n["ridge"], close(295.22, 0.01))],
    # 16 tokens × 2 × 8e9 FLOP ÷ 989 TFLOP/s = 0.26 ms, under the 4.78 ms read: v(k) = 1 up to k = 16
    2: lambda n: [("verify_ratio", n["verify_ratio"], [1.0] * 16)],
    # q = (p + far)/2 = .18 .13 .105 .105 .105 .11 .125 .14; Σ min(p, q) = .18+.13+.105+.105+.08+.06+.03+.02
    6: lambda n: [("alpha", n["alpha"], close(0.71)), ("tv", n["tv"], close(0.29))],
    # Medusa heads' marginals .56 .32 .20 .15 .12 ÷ the head before: .56, .32/.56, .20/.32, .15/.20, .12/.15
    7: lambda n: [("medusa", n["medusa_heads"]["conditional"], [close(x) for x in (0.56, 4 / 7, 0.625, 0.75, 0.8)])],
    # eh_proj at d_model 4096: 4096 × 8192 weights
    8: lambda n: [("params", n["params"], 33_554_432)],
    # qwen3.6-mtp: a = .83 at each of 3 positions, τ = 1 + .83 + .83² + .83³ = 3.0907, c .135: 3.0907 ÷ 1.405
    9: lambda n: [("qwen", n["columns"][0]["speedup"], close(2.19978, 1e-5))],
    # α .8, γ 4: τ = (1 − .8⁵)/(1 − .8) = 3.3616, ÷ (4 × .05 + 1) = 2.8013; best γ 8: 4.3289 ÷ 1.4 = 3.0921
    10: lambda n: [("tau", n["expected_tau"], close(3.3616)), ("speedup", n["speedup"], close(2.80133, 1e-5)),
                   ("best", (n["best_gamma"], round(n["best_speedup"], 4)), (8, 3.0921))],
    # eagle3 at T 0: a = .9222 × 7, τ = (1 − .9222⁸)/.0778 = 6.1296, c .2282: 6.1296 ÷ 2.5974 = 2.3599 at batch 1;
    # v_B(8) = 8B × 16 GFLOP ÷ 989 TFLOP/s ÷ 4.776 ms = 0.0271·B passes τ − γc = 4.532 from B = 168
    11: lambda n: [("speedup", n["speedup"], close(2.3599, 1e-4)), ("crossover", n["crossover_batch"], 168)],
}

# What must be on screen for given numbers: (how to read the screen, the formatted core value).
PROBES: dict[int, Callable[[LearnScreen, dict[str, Any]], list[tuple[str, str]]]] = {
    1: lambda s, n: [(shown(s, "numbers"), f"{n['ceiling_tps']:.4g} tok/s")],
    2: lambda s, n: [(shown(s, "numbers"), f"{n['verify_ratio'][-1]:.3f}×")],
    3: lambda s, n: [(shown(s, "numbers"), " ".join(n["selected_attends"]))],
    4: lambda s, n: [(shown(s, "numbers"), f"{n['emitted']} = {n['accepted']} + 1" if n["phase"] == 5 else "—"),
                     (grid_text(s), n["steps"][n["phase"]]["slots"][-2]["label"] or " ")],
    5: lambda s, n: [(grid_text(s), n["drafts"][0]["text"]), (shown(s, "numbers"), f"{n['rounds']}")],
    6: lambda s, n: [(shown(s, "numbers"), f"{n['alpha']:.3f}"), (shown(s, "numbers"), f"{n['tv']:.3f}")]
    + ([(s.query_one("#explain", Prose).text, f"= {n['proof']['total']:.3f}")] if n["explain"] == "proof" else [])
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
    for what, value, want in INDEPENDENT[number](screen, got):
        assert value == want, (number, what)
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
        for what, value, want in AT_DEFAULTS.get(number, lambda n: [])(before):
            assert value == want, (number, what)
        for slider in list(screen.query(Slider)):
            if not slider.display:  # a control this setting has not got (Learn 8's width of a separate drafter)
                continue
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

    en, zh = ({k: v for k, v in catalog(lang).items() if k.split(".")[0] in ("learn", "learnerr")}
              for lang in ("en", "zh"))
    assert sorted(en) == sorted(zh)
    field = re.compile(r"\{(\w+)")
    for key in en:
        assert sorted(set(field.findall(en[key]))) == sorted(set(field.findall(zh[key]))), key
