"""2 · Checking k tokens costs about one: v(k) on the roofline, and (m) measured on the local model."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Static

from specview.backends.local.gguf_info import NAME_CHARS
from specview.boundary.bounds import MAX_SHOWN
from specview.boundary.text import sanitize
from specview.catalog.hardware import ACCELERATORS, MODEL_SHAPES, accelerator, model_shape
from specview.features.learn.base import LearnScreen
from specview.features.learn.checks import (
    Checks,
    LessonChecks,
    forward_s,
    near,
    shown,
    slider_values,
)
from specview.features.learn.explain.roofline import (
    BATCHES,
    DEFAULT_ACCELERATOR,
    DEFAULT_SHAPE,
    VERIFY_KS,
    verify_cost_numbers,
)
from specview.features.learn.hardware_texts import chip_label, shape_label
from specview.features.learn.local_model import MEASURE_CONTEXT, MEASURE_REPEATS
from specview.features.learn.registry import Lesson
from specview.kernel.errors import SpecviewError
from specview.widgets.bindings import bind
from specview.widgets.column_chart import ColumnChart, Reference, Series
from specview.widgets.prose import Prose, plain
from specview.widgets.slider import Slider


class VerifyScreen(LearnScreen):
    """Accelerator, model and batch sliders; the cost of a k-token forward ÷ a 1-token one, k = 1…16."""

    BINDINGS = [bind("m", "measure", "learn.verify.measure")]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # the live run's own calibration (timed at its live context) until m measures the full curve
        costs = self.run.verify_costs_s[: len(VERIFY_KS)] if self.run is not None else ()
        self.measured: list[float] | None = list(costs) if costs else None

    def body(self) -> ComposeResult:
        chips = [a.id for a in ACCELERATORS]
        shapes = [m.id for m in MODEL_SHAPES]
        yield Slider(self.ts("chip"), chips, chips.index(DEFAULT_ACCELERATOR),
                     lambda v: chip_label(v, accelerator(v).label, self.lang), id="chip")
        yield Slider(self.ts("model"), shapes, shapes.index(DEFAULT_SHAPE),
                     lambda v: shape_label(v, model_shape(v).label, self.lang),
                     id="model")
        yield Slider(self.ts("batch"), list(BATCHES), 0, str, id="batch")
        yield Static(id="numbers", classes="learn-numbers")
        yield ColumnChart(id="chart")
        yield Prose(self.ts("legend"), classes="learn-legend")
        yield Static(id="measured", classes="learn-note")
        yield Prose(self.ts("note"), classes="learn-note")

    def numbers(self) -> dict[str, Any]:
        values = {s.id: s.value for s in self.query(Slider)}
        return verify_cost_numbers(values["chip"], values["model"], values["batch"], self.measured, run=self._run())

    def _run(self) -> tuple[float, int, float] | None:
        """The live run's (α, γ, c), when it measured all three."""
        run = self.run
        if run is None or run.alpha is None or not run.gamma or run.c is None:
            return None
        return run.alpha, run.gamma, run.c

    def refresh_numbers(self) -> None:
        n = self.numbers()
        bend = n["bend_tokens"]
        last = len(n["k"]) - 1
        pairs = [
            (self.ts("v16", k=n["k"][last]), f"{n['verify_ratio'][last]:.3f}×"),
            (self.ts("intensity", k=n["k"][last]), f"{n['intensity'][last]:.4g} FLOP/B"),
        ]
        if bend is None:
            pairs.append((self.ts("bend"), self.ts("no_ridge")))
        else:
            pairs.append((self.ts("bend"), self.ts("bend_at", tokens=bend, k=n["bend_k"])))
        if self.measured:
            pairs.append((self.ts("measured_v16", k=len(n["measured_ratio"])),
                          f"{n['measured_ratio'][-1]:.3f}×"))
        if "run" in n:
            r = n["run"]
            pairs.append((self.ts("run_speedup", gamma=r["gamma"]), self.ts("run_speedup_values",
                v=r["verify_ratio"], with_v=r["speedup_measured_v"], v1=r["speedup_v1"])))
        self.show_pairs("numbers", pairs)
        self._chart(n)
        if not self.measured:
            self.query_one("#measured", Static).update(self.ts("press_m") if self._model_path()
                                                       else plain(self.no_model_text(self.ts("no_model"))))
        elif self.run is not None and self.measured == list(self.run.verify_costs_s[: len(VERIFY_KS)]):
            self.query_one("#measured", Static).update(Text(self.ts("from_run",
                k=len(self.measured), t1=self.measured[0] * 1e3, tk=self.measured[-1] * 1e3)))

    def _chart(self, n: dict[str, Any]) -> None:
        """v(k) on a log axis, k = 1, 2, 4 … 512, with a column at the bend (▲) when it falls between two of
        them: flat up to the ridge, then rising; a measured curve (k ≤ 16) at the powers of two it reached."""
        ks: list[float] = list(n["axis_k"])
        theory: list[float] = list(n["axis_ratio"])
        bend, mark, inserted = n["bend_k"], None, None
        if bend is not None and ks[0] < bend < ks[-1]:
            closest = min(range(len(ks)), key=lambda i: abs(math.log(ks[i] / bend)))
            if abs(math.log(ks[closest] / bend)) < 0.05:
                mark = closest
            else:  # up to the bend the read time is the whole forward: v = 1 there
                mark = inserted = next(i for i, k in enumerate(ks) if k > bend)
                ks.insert(mark, bend)
                theory.insert(mark, 1.0)
        labels = [f"{k:.0f}" if k >= 10 or i != inserted else f"{k:.1f}" for i, k in enumerate(ks)]
        series = [Series(tuple(theory))]
        if self.measured:
            ratios = n["measured_ratio"]  # k = 1, 2, … as measured
            series.append(Series(tuple(ratios[int(k) - 1] if i != inserted and k <= len(ratios) else None
                                       for i, k in enumerate(ks)), glyph="▒", style="second"))
        self.query_one(ColumnChart).set(labels, series, references=[Reference(1.0)], mark=mark, unit="×")

    def _model_path(self) -> str | None:
        return self.run.target_path if self.run is not None else None

    def action_measure(self) -> None:
        path = self._model_path()
        if path is None:
            self.notify(plain(self.no_model_text(self.ts("no_model"))), severity="warning", markup=False)
            return
        self.query_one("#measured", Static).update(self.ts("measuring"))
        self._measure(path)

    @work(thread=True, exclusive=True, exit_on_error=False, group="verify-cost")
    def _measure(self, path: str) -> None:
        from specview.features.learn.local_model import measure_forward_costs

        try:
            seconds = measure_forward_costs(path, list(VERIFY_KS))
        except SpecviewError as exc:
            self.app.call_from_thread(self._failed, exc.in_language(self.lang))
            return
        self.app.call_from_thread(self._measured, seconds)

    def _failed(self, message: str) -> None:
        self.query_one("#measured", Static).update(Text(sanitize(message, MAX_SHOWN)))
        self.failed(message)

    def _measured(self, seconds: list[float]) -> None:
        self.measured = seconds
        self.query_one("#measured", Static).update(Text(self.ts("measured_note",
            model=sanitize(Path(self._model_path() or "").name, NAME_CHARS, one_line=True), t1=seconds[0] * 1e3,
            tk=seconds[-1] * 1e3, k=len(seconds), repeats=MEASURE_REPEATS, context=MEASURE_CONTEXT)))
        self.refresh_numbers()



def _independent(s: Any, n: dict[str, Any]) -> Checks:
    values = slider_values(s)
    chip, shape, batch = accelerator(values["chip"]), model_shape(values["model"]), values["batch"]
    ratios = [forward_s(chip, shape, k * batch) / forward_s(chip, shape, batch) for k in range(1, 17)]
    # the bend: 2·n ÷ (bits/8) FLOP per byte reaches the ridge FLOP/s ÷ B/s
    bend = None if chip.bf16_flops is None else chip.bf16_flops / chip.bandwidth * shape.bits / 8 / 2
    return [("verify_ratio", n["verify_ratio"], [near(r) for r in ratios]), ("bend_tokens", n["bend_tokens"],
            None if bend is None else near(bend))]


CHECKS = LessonChecks(
    _independent, lambda s, n: [(shown(s, "numbers"), f"{n['verify_ratio'][-1]:.3f}×")],
    # 16 tokens × 2 × 8e9 FLOP ÷ 989 TFLOP/s = 0.26 ms, under the 4.78 ms read: v(k) = 1 up to k = 16
    lambda n: [("verify_ratio", n["verify_ratio"], [1.0] * 16)])


LESSON = Lesson(2, "verify", VerifyScreen, lambda lang: verify_cost_numbers(), checks=CHECKS)
