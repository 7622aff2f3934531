"""11 · When it fails: under load the verify batch turns compute-bound and speculation can lose."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Static

from specview.boundary.text import sanitize
from specview.catalog.hardware import ACCELERATORS, MODEL_SHAPES, accelerator, model_shape
from specview.features.learn.base import LearnScreen, preset_name
from specview.features.learn.checks import (
    Checks,
    LessonChecks,
    drafted_shares,
    forward_s,
    near,
    preset_tau,
    shown,
    slider_values,
)
from specview.features.learn.explain.load import (
    BATCHES,
    DEFAULT_ACCELERATOR,
    DEFAULT_PRESET,
    DEFAULT_SHAPE,
    MAX_BATCH,
    VLLM_SLOWDOWN,
    load_numbers,
)
from specview.features.learn.hardware_texts import chip_label, shape_label
from specview.features.learn.registry import Lesson
from specview.features.learn.saved_sweeps import read_load_sweep
from specview.features.sweep.model import LoadSweep
from specview.features.sweep.render import verdict as load_verdict
from specview.features.sweep.saved import sweep_path
from specview.texts.catalog import fill
from specview.widgets.column_chart import ColumnChart, Reference, Series
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider

SERIES = (("eagle3-sglang", "◆", "second"), ("eagle-sglang", "◇", "third"))


class LoadScreen(LearnScreen):
    """Accelerator, model, preset and batch sliders; the roofline speedup against batch, with cited points
    and the user's own saved `specview sweep load` (concurrency on the batch axis)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sweep = read_load_sweep()

    def body(self) -> ComposeResult:
        chips = [a.id for a in ACCELERATORS if a.bf16_flops is not None]  # a bend needs a compute figure
        shapes = [m.id for m in MODEL_SHAPES]
        presets = self.listed_presets()
        yield Slider(self.ts("chip"), chips, chips.index(DEFAULT_ACCELERATOR),
                     lambda v: chip_label(v, accelerator(v).label, self.lang), id="chip")
        yield Slider(self.ts("model"), shapes, shapes.index(DEFAULT_SHAPE),
                     lambda v: shape_label(v, model_shape(v).label, self.lang), id="model")
        yield Slider(self.ts("preset"), presets, presets.index(DEFAULT_PRESET) if DEFAULT_PRESET in presets else 0,
                     preset_name, id="preset")
        yield Slider(self.ts("batch"), list(BATCHES), 0, str, id="batch")
        yield Static(id="numbers", classes="learn-numbers")
        yield ColumnChart(id="chart", classes="-tall")
        yield Prose(self.ts("legend"), classes="learn-legend")
        yield Prose(id="measured", classes="learn-note")
        yield Prose(id="axes", classes="learn-note")
        yield Prose(self.ts("note", slow=VLLM_SLOWDOWN), classes="learn-note")
        yield Prose(self.ts("context"), classes="learn-note")  # the other way it fails: long context

    def controls(self) -> dict[str, Any]:
        v = {s.id: s.value for s in self.query(Slider)}
        return {"accelerator_id": v["chip"], "shape_id": v["model"], "preset_id": v["preset"], "batch": v["batch"]}

    def numbers(self) -> dict[str, Any]:
        return load_numbers(**self.controls())

    def refresh_numbers(self) -> None:
        n = self.numbers()
        cross = n["crossover_batch"]
        self.show_pairs("numbers", [
            (self.ts("speedup", b=n["batch"]), f"{n['speedup']:.3f}×"),
            (self.ts("verify", k=n["gamma"] + 1) if n["fixed_depth"] else self.ts("verify_mean"),
             f"{n['verify_ratio']:.3f}"),
            # k: the drafts a round makes, E[k] < γ where depth varies (what the round pays for)
            (self.ts("preset_values"), f"τ {n['tau']:.2f} · γ {n['gamma']} · c {n['c']:g}"
             + ("" if n["fixed_depth"] else f" · E[k] {n['mean_drafted']:.3g}")),
            (self.ts("crossover"), self.ts("crossover_at", b=cross) if cross is not None
             else self.ts("crossover_none", b=MAX_BATCH)),
        ])
        batches = n["batches"]
        series = [Series(tuple(n["curve"]))]
        for name, glyph, style in SERIES:
            points = {int(p["load"]): p["speedup"] for p in n["cited"] if p["series"] == name}
            series.append(Series(tuple(points.get(b) for b in batches), glyph=glyph, style=style, fill=False))
        mine = self.sweep.points if isinstance(self.sweep, LoadSweep) else ()
        if mine:
            gains = {p.concurrency: p.gain for p in mine}
            series.append(Series(tuple(gains.get(b) for b in batches), glyph="●", style="mark", fill=False))
        slow = next(p for p in n["cited"] if p["axis"] == "qps")
        self.query_one(ColumnChart).set([str(b) for b in batches], series,
                                        references=[Reference(1.0), Reference(slow["speedup"], "╌")],
                                        mark=batches.index(n["batch"]), unit="×")
        self.query_one("#measured", Prose).update(self._sweep_line(batches))
        self.query_one("#axes", Prose).update(fill("learn.load.axes", self.lang, gamma=n["gamma"],
                                                   slow=n["vllm_slowdown"]))

    def _sweep_line(self, batches: list[int]) -> str:
        sweep = self.sweep
        if sweep is None:
            return self.t("learn.load.sweep_none")
        if isinstance(sweep, str):
            return fill("learn.load.sweep_bad", self.lang, reason=sanitize(sweep, 200, one_line=True))
        points = ", ".join(f"{p.concurrency} → {p.gain:.2f}×" if p.gain is not None else f"{p.concurrency} → —"
                           for p in sorted(sweep.points, key=lambda p: p.concurrency)) or "—"
        verdict = load_verdict(sweep, self.lang)  # the sweep's own sentence: a tie from the start stops nothing
        off = sorted({p.concurrency for p in sweep.points} - set(batches))
        if off:
            verdict += " · " + fill("learn.load.sweep_off_axis", self.lang, levels=", ".join(map(str, off)))
        return fill("learn.load.sweep", self.lang, path=sanitize(str(sweep_path("load")), 120, one_line=True),
                    points=points, crossover=verdict)



def _independent(s: Any, n: dict[str, Any]) -> Checks:
    values = slider_values(s)
    chip, shape, batch = accelerator(values["chip"]), model_shape(values["model"]), values["batch"]
    preset, tau = preset_tau(values["preset"])
    shares = drafted_shares(preset)

    def at(b: int) -> float:  # τ / (E[k]·c + E[v_B(k+1)]), v_B(k) = t(B·k) ÷ t(B), k the drafts of a round
        v = sum(w * forward_s(chip, shape, b * (k + 1)) / forward_s(chip, shape, b) for k, w in enumerate(shares))
        return float(tau / (sum(k * w for k, w in enumerate(shares)) * preset.c + v))

    crossover = next((b for b in range(1, 4097) if at(b) < 1), None)
    return [("speedup", n["speedup"], near(at(batch))), ("crossover", n["crossover_batch"], crossover)]


CHECKS = LessonChecks(
    _independent, lambda s, n: [(shown(s, "numbers"), f"{n['speedup']:.3f}×")],
    # eagle3 at T 0: a = .9222 × 7, τ = (1 − .9222⁸)/.0778 = 6.1296, c .2282: 6.1296 ÷ 2.5974 = 2.3599 at batch 1;
    # v_B(8) = 8B × 16 GFLOP ÷ 989 TFLOP/s ÷ 4.776 ms = 0.0271·B passes τ − γc = 4.532 from B = 168
    lambda n: [("speedup", n["speedup"], near(2.3599, 1e-4)), ("crossover", n["crossover_batch"], 168)])


LESSON = Lesson(11, "load", LoadScreen, lambda lang: load_numbers(), checks=CHECKS,
                preset_numbers=lambda lang, preset_id: load_numbers(preset_id=preset_id))
