"""10 · How much faster? α, γ, c and v → τ and the speedup, the curve over γ, break-even; `f` uses the run."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Static

from specview.boundary.text import number
from specview.features.learn.base import LearnScreen
from specview.features.learn.explain.speedup import (
    DEFAULT_ALPHA,
    DEFAULT_C,
    DEFAULT_GAMMA,
    DEFAULT_VERIFY_RATIO,
    Measured,
    speedup_numbers,
)
from specview.features.learn.registry import Lesson
from specview.kernel.gauges import position_texts
from specview.widgets.bindings import bind
from specview.widgets.column_chart import ColumnChart, Reference, Series
from specview.widgets.position_bars import PositionBars
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider

ALPHAS = [round(i * 0.01, 2) for i in range(100)]
GAMMAS = list(range(1, 17))
CS = [round(i * 0.01, 2) for i in range(51)]
VERIFY_RATIOS = [round(1 + i * 0.05, 2) for i in range(61)]


class SpeedupScreen(LearnScreen):
    """Sliders for α, γ, c, v; the numbers of Leviathan Eq. 1 / Thm 3.8 and the speedup curve."""

    BINDINGS = [bind("f", "fill", "learn.speedup.fill")]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.measured: Measured | None = None

    def body(self) -> ComposeResult:
        yield Slider("α", ALPHAS, ALPHAS.index(DEFAULT_ALPHA), lambda v: f"{v:.2f}", id="alpha")
        yield Slider("γ", GAMMAS, GAMMAS.index(DEFAULT_GAMMA), str, id="gamma")
        yield Slider("c", CS, CS.index(DEFAULT_C), lambda v: f"{v:.2f}", id="c")
        yield Slider(self.ts("verify"), VERIFY_RATIOS, VERIFY_RATIOS.index(DEFAULT_VERIFY_RATIO),
                     lambda v: f"{v:.2f}", id="verify")
        yield Static(id="numbers", classes="learn-numbers")
        yield ColumnChart(id="chart")
        yield Prose(self.ts("legend"), classes="learn-legend")
        yield Static(id="measured", classes="learn-note")
        yield PositionBars(id="positions")
        yield Prose(self.ts("note"), classes="learn-note")

    def on_mount(self) -> None:
        super().on_mount()
        if self.run is not None and self.run.fill:
            self.action_fill()

    def controls(self) -> dict[str, Any]:
        value = {s.id: s.value for s in self.query(Slider)}
        return {"alpha": value["alpha"], "gamma": value["gamma"], "c": value["c"], "verify_ratio": value["verify"]}

    def numbers(self) -> dict[str, Any]:
        return speedup_numbers(**self.controls(), measured=self.measured)

    def refresh_numbers(self) -> None:
        n = self.numbers()
        even = n["break_even"]
        if even["alpha_beats_c"]:
            verdict = self.ts("helps", alpha=n["alpha"], c=n["c"], bound=even["lower_bound"])
        else:
            verdict = self.ts("never", alpha=n["alpha"], c=n["c"])
        self.show_pairs("numbers", [
            (self.ts("tau"), f"{n['expected_tau']:.3f}"),
            (self.ts("speedup"), f"{n['speedup']:.3f}×   = τ / (γc + v)"),
            (self.ts("best"), f"γ {n['best_gamma']} → {n['best_speedup']:.3f}×"),
            (self.ts("break_even"), verdict),
            (self.ts("gamma1"), f"{even['gamma1_speedup']:.3f}×"),
        ])
        best = n["best_gamma"]
        self.query_one(ColumnChart).set(
            [str(g) for g in n["curve_gamma"]],
            [Series(tuple(n["curve_speedup"]))],
            references=[Reference(1.0)],
            mark=best - 1 if 1 <= best <= len(n["curve_gamma"]) else None,
            unit="×",
        )
        self._show_measured(n.get("measured"))

    def _show_measured(self, taus: dict[str, float | None] | None) -> None:
        bars = self.query_one(PositionBars)
        if taus is None or self.measured is None:
            self.query_one("#measured", Static).update(self.ts("fill_hint"))
            bars.display = False
            return
        m = self.measured
        self.show_pairs("measured", [
            (self.ts("run"), f"α {number(m.alpha, '.3f')} · γ {number(m.gamma)} · c {number(m.c, '.3f')}"),
            (self.ts("tau_iid"), number(taus["tau_iid"], ".3f")),
            (self.ts("tau_positions"), number(taus["tau_positions"], ".3f")),
            (self.ts("tau_measured"), number(taus["tau_measured"], ".3f")),
        ])
        bars.display = bool(m.per_position)
        bars.set(position_texts(m.per_position))

    def action_fill(self) -> None:
        run = self.run
        if run is None or run.alpha is None:
            self.notify(self.ts("no_run"), severity="warning")
            return
        self.measured = Measured(run.alpha, run.gamma, run.c, run.tau, run.per_position, run.verify_ratio)
        sliders = {s.id: s for s in self.query(Slider)}
        sliders["alpha"].select(min(run.alpha, ALPHAS[-1]))
        if run.gamma:
            sliders["gamma"].select(min(max(run.gamma, 1), GAMMAS[-1]))
        if run.c is not None:
            sliders["c"].select(min(run.c, CS[-1]))
        if run.verify_ratio is not None:
            sliders["verify"].select(min(max(run.verify_ratio, 1.0), VERIFY_RATIOS[-1]))
        self.refresh_numbers()


LESSON = Lesson(10, "speedup", SpeedupScreen, lambda lang: speedup_numbers())
