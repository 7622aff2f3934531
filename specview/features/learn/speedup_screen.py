"""10 · How much faster? α, γ, c and v → τ and the speedup, the curve over γ, break-even; `f` uses the run."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Static

from specview.boundary.text import number, sanitize
from specview.features.learn.base import LearnScreen, preset_name
from specview.features.learn.checks import (
    Checks,
    LessonChecks,
    Probes,
    drafted_shares,
    near,
    preset_tau,
    shown,
    slider_values,
)
from specview.features.learn.explain.speedup import (
    DEFAULT_ALPHA,
    DEFAULT_C,
    DEFAULT_GAMMA,
    DEFAULT_VERIFY_RATIO,
    Measured,
    preset_controls,
    preset_speedup_numbers,
    speedup_numbers,
)
from specview.features.learn.registry import Lesson
from specview.features.learn.saved_sweeps import read_gamma_sweep
from specview.features.learn.tags import tag
from specview.features.sweep.saved import sweep_path
from specview.kernel.gauges import position_texts
from specview.kernel.theory import MAX_GAMMA
from specview.texts.catalog import fill
from specview.widgets.bindings import bind
from specview.widgets.column_chart import ColumnChart, Reference, Series
from specview.widgets.position_bars import PositionBars
from specview.widgets.prose import Prose, plain
from specview.widgets.slider import Slider

ALPHAS = [round(i * 0.01, 2) for i in range(100)]
GAMMAS = list(range(1, 17))
CS = [round(i * 0.01, 2) for i in range(51)]
VERIFY_RATIOS = [round(1 + i * 0.05, 2) for i in range(61)]
FROM_PRESET = ("alpha", "gamma", "c")  # moving one of these leaves the preset: the sliders' own numbers from then on


def exact(value: float) -> str:
    """A slider's number: two decimals on a step, four where a preset or a run put it between steps
    (GLM-5.2's α 0.8876, suffix's c 0.005), so what is shown is what is computed with."""
    return f"{value:.2f}" if abs(value * 100 - round(value * 100)) < 1e-9 else f"{value:.4f}".rstrip("0")


class SpeedupScreen(LearnScreen):
    """Sliders for α, γ, c, v; the numbers of Leviathan Eq. 1 / Thm 3.8 and the speedup curve."""

    BINDINGS = [bind("f", "fill", "learn.speedup.fill")]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.measured: Measured | None = None
        self.sweep = read_gamma_sweep()

    def body(self) -> ComposeResult:
        yield Slider(self.t("learn.speedup.preset"), ["", *self.listed_presets()], 0,
                     lambda v: preset_name(v) if v else self.t("learn.speedup.manual"), id="preset")
        yield Slider("α", ALPHAS, ALPHAS.index(DEFAULT_ALPHA), exact, id="alpha")
        yield Slider("γ", GAMMAS, GAMMAS.index(DEFAULT_GAMMA), str, id="gamma")
        yield Slider("c", CS, CS.index(DEFAULT_C), exact, id="c")
        yield Slider(self.ts("verify"), VERIFY_RATIOS, VERIFY_RATIOS.index(DEFAULT_VERIFY_RATIO), exact, id="verify")
        yield Static(id="numbers", classes="learn-numbers")
        yield ColumnChart(id="chart")
        yield Prose(self.ts("legend"), classes="learn-legend")
        yield Prose(id="preset_line", classes="learn-note")
        yield Prose(id="sweep", classes="learn-note")
        yield Prose(id="length", classes="learn-note")
        yield Prose(id="hint", classes="learn-note")  # prose wraps at term boundaries; the pairs below are a table
        yield Static(id="measured", classes="learn-note")
        yield PositionBars(id="positions")
        yield Prose(self.ts("note"), classes="learn-note")

    def on_mount(self) -> None:
        super().on_mount()
        if self.run is not None and self.run.fill:
            self.action_fill()

    def on_slider_changed(self, event: Slider.Changed) -> None:
        event.stop()
        picker = self.query_one("#preset", Slider)
        if event.slider.id == "preset" and picker.value:
            self._load_preset(picker.value)
        elif event.slider.id in FROM_PRESET and picker.value:
            picker.select("")  # the user's own α, γ or c: no longer the preset's numbers
        self.refresh_numbers()

    def _load_preset(self, preset_id: str) -> None:
        """The preset's exact α (Eq. 1 solved for its τ at its γ) and c; the sliders snap only when moved."""
        picked = preset_controls(preset_id)
        sliders = {s.id: s for s in self.query(Slider)}
        sliders["alpha"].select(picked["alpha"], exact=True)
        sliders["gamma"].select(picked["gamma"], exact=True)  # a user preset may draft more than 16
        sliders["c"].select(picked["c"], exact=True)
        sliders["verify"].select(DEFAULT_VERIFY_RATIO)

    def controls(self) -> dict[str, Any]:
        value = {s.id: s.value for s in self.query(Slider) if s.id != "preset"}
        return {"alpha": value["alpha"], "gamma": value["gamma"], "c": value["c"], "verify_ratio": value["verify"]}

    def numbers(self) -> dict[str, Any]:
        preset_id = self.query_one("#preset", Slider).value
        if preset_id:  # the preset's own τ and speedup, as `specview presets` and screens 9 and 11 give them
            return preset_speedup_numbers(preset_id, self.controls()["verify_ratio"], measured=self.measured)
        return speedup_numbers(**self.controls(), measured=self.measured)

    def refresh_numbers(self) -> None:
        n = self.numbers()
        even = n["break_even"]
        if even["alpha_beats_c"]:
            verdict = self.ts("helps", alpha=exact(n["alpha"]), c=exact(n["c"]), bound=even["lower_bound"])
        else:
            verdict = self.ts("never", alpha=exact(n["alpha"]), c=exact(n["c"]))
        drafted = n.get("mean_drafted", n["gamma"])
        formula = "τ/(γc+v)" if drafted == n["gamma"] else f"τ/({drafted:.3g}c+v)"  # drafts made, not γ
        self.show_pairs("numbers", [  # the digits of `specview calc` and `specview presets`
            (self.ts("tau_preset" if "preset" in n else "tau"), f"{n['expected_tau']:.3f}"),
            (self.ts("speedup"), f"{n['speedup']:.4f}×   = {formula}"),  # one term: never wrapped inside
            (self.ts("best"), f"γ {n['best_gamma']} → {n['best_speedup']:.4f}×"),
            (self.ts("break_even"), verdict),
            (self.ts("gamma1"), f"{even['gamma1_speedup']:.4f}×"),
        ])
        best = n["best_gamma"]
        series = [Series(tuple(n["curve_speedup"]))]
        if isinstance(self.sweep, tuple) and self.sweep:
            got = {p.gamma: p.speedup for p in self.sweep}
            series.append(Series(tuple(got.get(g) for g in n["curve_gamma"]), glyph="●", style="second", fill=False))
        self.query_one(ColumnChart).set(
            [str(g) for g in n["curve_gamma"]],
            series,
            references=[Reference(1.0)],
            mark=best - 1 if 1 <= best <= len(n["curve_gamma"]) else None,
            unit="×",
        )
        cheap, dear = n["best_gamma_by_c"]
        self.query_one("#length", Prose).update(self.ts(
            "length", alpha=exact(n["alpha"]), cheap_c=cheap["c"], dear_c=dear["c"],
            cheap_gamma=self._gamma_or_plain(cheap["best_gamma"]), dear_gamma=self._gamma_or_plain(dear["best_gamma"])))
        self._show_measured(n.get("measured"))
        self._show_preset()
        self.query_one("#sweep", Prose).update(self._sweep_line())

    def _gamma_or_plain(self, gamma: int) -> str:
        return str(gamma) if gamma else self.ts("length_plain")

    def _show_preset(self) -> None:
        preset_id = self.query_one("#preset", Slider).value
        box = self.query_one("#preset_line", Prose)
        box.display = bool(preset_id)
        if preset_id:
            p = preset_controls(preset_id)
            tags = {f"{k}_tag": tag(p["kinds"][k], self.lang) for k in ("tau", "gamma", "c", "alpha")}
            box.update(fill("learn.speedup.preset_line", self.lang, preset=preset_name(preset_id),
                            tau=p["tau"], gamma=p["gamma"], c=p["c"], alpha=p["alpha"], **tags))

    def _sweep_line(self) -> str:
        sweep = self.sweep
        if sweep is None:
            return self.t("learn.speedup.sweep_none")
        if isinstance(sweep, str):
            return fill("learn.speedup.sweep_bad", self.lang, reason=sanitize(sweep, 200, one_line=True))
        timed = [p for p in sweep if p.speedup is not None]
        points = ", ".join(f"γ {p.gamma} {p.speedup:.2f}×" for p in timed) or "—"
        best = next((p.gamma for p in timed if p.best), "—")  # the sweep's ★: only beyond noise
        return fill("learn.speedup.sweep", self.lang, path=sanitize(str(sweep_path("gamma")), 120, one_line=True),
                    points=points, best=best)

    def _show_measured(self, taus: dict[str, float | None] | None) -> None:
        bars = self.query_one(PositionBars)
        hint, pairs = self.query_one("#hint", Prose), self.query_one("#measured", Static)
        hint.display, pairs.display = self.measured is None, self.measured is not None
        if taus is None or self.measured is None:
            no_run = self.run is None or self.run.backend == "file"
            hint.update(self.t("learn.speedup.no_run") if no_run else self.ts("fill_hint"))
            bars.display = False
            return
        m = self.measured
        self.show_pairs("measured", [
            (self.ts("run"), f"α {number(m.alpha, '.3f')} · γ {number(m.gamma)} · c {number(m.c, '.3f')}"),
            (self.ts("tau_iid"), number(taus["tau_iid"], ".3f")),
            (self.ts("tau_positions"), number(taus["tau_positions"], ".3f")),
            (self.ts("tau_measured", origin=self.origin()), number(taus["tau_measured"], ".3f")),
        ])
        bars.display = bool(m.per_position)
        bars.set(position_texts(m.per_position))

    def action_fill(self) -> None:
        run = self.run
        if run is None or run.backend == "file":  # a model file alone has no rounds to measure
            self.notify(plain(self.t("learn.speedup.no_run")), severity="warning", markup=False)
            return
        if run.alpha is None:
            self.notify(plain(self.t("learn.speedup.no_alpha")), severity="warning", markup=False)
            return
        self.measured = Measured(run.alpha, run.gamma, run.c, run.tau, run.per_position, run.verify_ratio)
        sliders = {s.id: s for s in self.query(Slider)}
        sliders["preset"].select("")  # the run's numbers, not a preset's
        # exact, as the run measured them: the τ here is the τ "from its α" below, not a step's
        sliders["alpha"].select(run.alpha, exact=True)
        if run.gamma:
            sliders["gamma"].select(max(run.gamma, 1), exact=True)
        if run.c is not None:
            sliders["c"].select(run.c, exact=True)
        if run.verify_ratio is not None:
            sliders["verify"].select(max(run.verify_ratio, 1.0), exact=True)
        self.refresh_numbers()



def _independent(s: Any, n: dict[str, Any]) -> Checks:
    values = slider_values(s)
    a, g, c, v = (values[k] for k in ("alpha", "gamma", "c", "verify"))
    if values["preset"]:
        return _from_preset(values["preset"], a, v, n)

    def at(gamma: int) -> float:
        return float(sum(a**k for k in range(gamma + 1)) / (gamma * c + v))  # τ = 1 + α + … + α^γ (Eq. 1)

    best = max(range(1, MAX_GAMMA + 1), key=lambda gamma: (round(at(gamma), 9), -gamma))
    return [("tau", n["expected_tau"], near(sum(a**k for k in range(g + 1)))), ("speedup", n["speedup"], near(at(g))),
            ("best", (n["best_gamma"], n["best_speedup"]), (best, near(at(best))) if at(best) > 1 else (0, 1.0)),
            ("curve", n["curve_speedup"], [near(at(gamma)) for gamma in range(1, 17)])]


def _from_preset(preset_id: str, a: float, v: float, n: dict[str, Any]) -> Checks:
    """A preset loaded: its own τ and speedup (its drafts per round, not γ), and an α that gives that τ by Eq. 1."""
    preset, tau = preset_tau(preset_id)
    drafted = sum(k * w for k, w in enumerate(drafted_shares(preset)))
    at_gamma = tau / (drafted * preset.c + v)
    out: Checks = [("tau", n["expected_tau"], near(tau, 1e-9)), ("speedup", n["speedup"], near(at_gamma, 1e-9)),
                   ("alpha", sum(a**k for k in range(preset.gamma + 1)), near(tau, 1e-9)),
                   ("best", n["best_speedup"] >= max(n["curve_speedup"]) - 1e-12, True)]
    if preset.gamma <= len(n["curve_speedup"]):
        out.append(("curve", n["curve_speedup"][preset.gamma - 1], near(at_gamma, 1e-9)))
    return out


def _probes(s: Any, n: dict[str, Any]) -> Probes:
    return [(shown(s, "numbers"), f"{n['expected_tau']:.3f}"), (shown(s, "numbers"), f"{n['speedup']:.4f}×"),
            (shown(s, "numbers"), f"γ {n['best_gamma']} → {n['best_speedup']:.4f}×")]


CHECKS = LessonChecks(
    _independent, _probes,
    # α .8, γ 4: τ = (1 − .8⁵)/(1 − .8) = 3.3616, ÷ (4 × .05 + 1) = 2.8013; best γ 8: 4.3289 ÷ 1.4 = 3.0921
    lambda n: [("tau", n["expected_tau"], near(3.3616)), ("speedup", n["speedup"], near(2.80133, 1e-5)),
               ("best", (n["best_gamma"], round(n["best_speedup"], 4)), (8, 3.0921))])


LESSON = Lesson(10, "speedup", SpeedupScreen, lambda lang: speedup_numbers(), checks=CHECKS,
                preset_numbers=lambda lang, preset_id: preset_speedup_numbers(preset_id))
