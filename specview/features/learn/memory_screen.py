"""1 · The GPU waits for memory: bytes per token, the bandwidth-bound ceiling, the idle ALUs."""

from __future__ import annotations

import math
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Static

from specview.boundary.text import sanitize
from specview.catalog.hardware import (
    ACCELERATORS,
    COPY_MB,
    MODEL_SHAPES,
    ModelShape,
    accelerator,
    measure_memory_bandwidth,
    model_shape,
)
from specview.features.learn import show
from specview.features.learn.base import LearnScreen
from specview.features.learn.checks import (
    Checks,
    LessonChecks,
    near,
    shown,
    slider_values,
)
from specview.features.learn.explain.roofline import DEFAULT_ACCELERATOR, DEFAULT_SHAPE, gpu_wait_numbers, local_shape
from specview.features.learn.hardware_texts import chip_label, chip_source, shape_label
from specview.features.learn.local_model import memory_numbers, model_error, read_model_info
from specview.features.learn.registry import Lesson
from specview.widgets.bindings import bind
from specview.widgets.prose import Prose
from specview.widgets.slider import Slider

LOG_LOW, LOG_HIGH = -1.0, 3.0  # the intensity strip spans 0.1 … 1000 FLOP/byte


class MemoryScreen(LearnScreen):
    """Accelerator and model sliders; with a local model, its own size and (b) this machine's bandwidth."""

    BINDINGS = [bind("b", "bandwidth", "learn.memory.bandwidth")]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.local: ModelShape | None = None
        self.host_bandwidth: float | None = None
        if self.run is not None and self.run.target_path:
            info = read_model_info(self.run.target_path)
            if info is not None:
                self.local = local_shape(info.name, info.params, info.weight_bytes)

    def on_mount(self) -> None:
        path = self.run.target_path if self.run is not None else None
        error = model_error(path, self.lang) if path else None
        if error is not None:  # the screen still shows the shipped shapes: say why the model is missing
            self.failed(error, self.t("inputs.gguf.failed"))

    def body(self) -> ComposeResult:
        chips = [a.id for a in ACCELERATORS]
        shapes = [m.id for m in MODEL_SHAPES] + (["local"] if self.local else [])
        labels = {m.id: shape_label(m.id, m.label, self.lang) for m in MODEL_SHAPES}
        if self.local:
            labels["local"] = f"{self.ts('local')}: {self.local.label}"
        yield Slider(self.ts("chip"), chips, chips.index(DEFAULT_ACCELERATOR),
                     lambda v: chip_label(v, accelerator(v).label, self.lang), id="chip")
        yield Slider(self.ts("model"), shapes, len(shapes) - 1 if self.local else shapes.index(DEFAULT_SHAPE),
                     lambda v: labels[v], id="model")
        yield Static(id="numbers", classes="learn-numbers")
        yield Static(id="intensity", classes="learn-numbers")
        yield Static(id="local", classes="learn-note")
        yield Prose(self.ts("note"), classes="learn-note")
        yield Static(id="source", classes="learn-note")

    def numbers(self) -> dict[str, Any]:
        values = {s.id: s.value for s in self.query(Slider)}
        tps = self.run.tokens_per_second if self.run is not None else None
        return gpu_wait_numbers(values["chip"], values["model"], self.local, self.host_bandwidth, tps)

    def refresh_numbers(self) -> None:
        n = self.numbers()
        none = self.ts("unknown")
        pairs = [
            (self.ts("bytes"), show.size(n["bytes_per_token"]) + f"  ({n['bits']:.3g} {self.ts('bits')})"),
            (self.ts("bandwidth"), show.rate(n["bandwidth"])),
            (self.ts("flops"), none if n["bf16_flops"] is None else show.flops(n["bf16_flops"])),
            (self.ts("latency"), show.duration(n["latency_s"])),
            (self.ts("ceiling"), f"{n['ceiling_tps']:.4g} tok/s"),
            (self.ts("intensity"), f"{n['intensity']:.3g} FLOP/B"),
            (self.ts("ridge"), none if n["ridge"] is None else self.ts(
                "ridge_value", ridge=f"{n['ridge']:.3g}", flops=show.flops(n["bf16_flops"]),
                bandwidth=show.rate(n["bandwidth"]))),
            (self.ts("idle"), none if n["compute_idle"] is None else show.percent(n["compute_idle"])),
        ]
        if n["fits_memory"] is False:
            pairs.append((self.ts("fits"), self.ts("no_fit")))
        self.show_pairs("numbers", pairs)
        self.query_one("#intensity", Static).update(self._strip(n["intensity"], n["ridge"]))
        self._show_local(n.get("host"), n.get("local"))
        self.query_one("#source", Static).update(
            Text(self.ts("source", sources=chip_source(n["accelerator"], accelerator(n["accelerator"]).source,
                                                       self.lang)), style="dim"))

    def _strip(self, intensity: float, ridge: float | None) -> Text:
        """Intensity and ridge on a log axis from 0.1 to 1000 FLOP/byte."""
        width = 48

        def at(value: float) -> int:
            return round((math.log10(value) - LOG_LOW) / (LOG_HIGH - LOG_LOW) * (width - 1))

        cells = ["·"] * width
        if ridge is not None:
            cells[min(width - 1, at(ridge))] = "┃"
        cells[max(0, at(intensity))] = "●"
        line = Text("0.1 ", style="dim")
        line.append("".join(cells))
        line.append(" 1000 FLOP/B", style="dim")
        line.append(f"\n● {self.ts('strip_point')}   ┃ {self.ts('strip_ridge')}", style="dim")
        return line

    def _show_local(self, host: dict[str, Any] | None, local: dict[str, Any] | None) -> None:
        pairs: list[tuple[str, str]] = []
        if host is None:
            pairs.append((self.ts("host"), self.ts("press_b")))
        else:
            pairs.append((self.ts("host"), show.rate(host["bandwidth"]) + " " + self.ts("copy", mb=COPY_MB)))
            pairs.append((self.ts("host_ceiling"), f"{host['ceiling_tps']:.4g} tok/s"))
        if local is not None:
            pairs.append((self.ts("local_model"),
                          sanitize(local["model"]) + " · " + show.size(local["bytes_per_token"])))
            if local["measured_tps"] is not None:
                shown = f"{local['measured_tps']:.4g} tok/s"
                if local["share_of_ceiling"] is not None:
                    shown += f" = {show.percent(local['share_of_ceiling'])} {self.ts('of_ceiling')}"
                pairs.append((self.ts("measured"), shown))
        self.show_pairs("local", pairs)

    def action_bandwidth(self) -> None:
        self.notify(self.ts("measuring"))
        self._measure()

    @work(thread=True, exclusive=True, exit_on_error=False, group="bandwidth")
    def _measure(self) -> None:
        bandwidth = measure_memory_bandwidth()
        self.app.call_from_thread(self._measured, bandwidth)

    def _measured(self, bandwidth: float) -> None:
        self.host_bandwidth = bandwidth
        self.refresh_numbers()



def _independent(s: Any, n: dict[str, Any]) -> Checks:
    chip, shape = accelerator(slider_values(s)["chip"]), model_shape(slider_values(s)["model"])
    ridge = None if chip.bf16_flops is None else chip.bf16_flops / chip.bandwidth
    intensity = 2 / (shape.bits / 8)  # 2 FLOPs per weight, each weight read once per token
    return [("ceiling_tps", n["ceiling_tps"], near(chip.bandwidth / (shape.active_params * shape.bits / 8))),
            ("intensity", n["intensity"], near(intensity)), ("ridge", n["ridge"], ridge),
            ("compute_busy", n["compute_busy"], None if ridge is None else near(min(1, intensity / ridge)))]


CHECKS = LessonChecks(
    _independent, lambda s, n: [(shown(s, "numbers"), f"{n['ceiling_tps']:.4g} tok/s")],
    # H100 SXM 3.35 TB/s ÷ (8e9 weights × 2 bytes) = 209.375 tok/s; ridge 989 TFLOP/s ÷ 3.35 TB/s = 295.2 FLOP/B
    lambda n: [("ceiling_tps", n["ceiling_tps"], near(209.375)), ("ridge", n["ridge"], near(295.22, 0.01))])


LESSON = Lesson(1, "memory", MemoryScreen, lambda lang: gpu_wait_numbers(), lambda lang, path: memory_numbers(path),
                checks=CHECKS)
