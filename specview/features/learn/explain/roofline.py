"""Screens 1 and 2 · the GPU waits for memory, so checking k tokens costs about one.

Built on `core.hardware`: bytes read per token, the bandwidth-bound latency and tok/s ceiling,
arithmetic intensity against the ridge point, and the verify cost ratio v(k) over k = 1…16.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specview.catalog.hardware import (
    Accelerator,
    ModelShape,
    accelerator,
    arithmetic_intensity,
    bend_tokens,
    forward_time_s,
    model_shape,
    verify_cost_ratio,
)
from specview.kernel.theory import speedup, verify_ratio

DEFAULT_ACCELERATOR = "h100-sxm"
DEFAULT_SHAPE = "dense-8b-bf16"
VERIFY_KS = tuple(range(1, 17))  # the numbers, and what `m` times on a local model
AXIS_KS = tuple(2**i for i in range(10))  # the chart's log axis, k = 1, 2, 4 … 512: past a data centre chip's ridge
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)


def local_shape(name: str, params: float, weight_bytes: float) -> ModelShape:
    """A loaded GGUF as a model shape: every parameter active, its own bits per weight."""
    if params <= 0 or weight_bytes <= 0:
        raise ValueError("a model needs parameters and bytes")
    return ModelShape("local", name, params, params, 8.0 * weight_bytes / params, "the loaded GGUF file")


def roofline(shape: ModelShape, chip: Accelerator) -> dict[str, Any]:
    """One token per forward at batch 1: what is read, how long it takes, how busy the ALUs are."""
    latency = forward_time_s(shape, chip, 1)
    intensity = arithmetic_intensity(1, shape.bits)
    ridge = chip.ridge
    busy = None if ridge is None else min(1.0, intensity / ridge)
    return {
        "accelerator": chip.id,
        "shape": shape.id,
        "bandwidth": chip.bandwidth,
        "bf16_flops": chip.bf16_flops,
        "bytes_per_token": shape.weight_bytes,
        "bits": shape.bits,
        "latency_s": latency,
        "ceiling_tps": 1.0 / latency,
        "intensity": intensity,
        "ridge": ridge,
        "compute_busy": busy,
        "compute_idle": None if busy is None else 1.0 - busy,
        "fits_memory": None if chip.memory_gb is None else shape.total_params * shape.bits / 8 <= chip.memory_gb * 1e9,
    }


def gpu_wait_numbers(
    accelerator_id: str = DEFAULT_ACCELERATOR, shape_id: str = DEFAULT_SHAPE, local: ModelShape | None = None,
    host_bandwidth: float | None = None, measured_tps: float | None = None,
) -> dict[str, Any]:
    """Screen 1: the roofline at batch 1 (shape "local" = the loaded GGUF), this machine's ceiling for
    the same model once its bandwidth is measured, and a local run's tok/s as a share of its own ceiling."""
    chip = accelerator(accelerator_id)
    if shape_id == "local":
        if local is None:
            raise ValueError("no local model to show")
        shape = local
    else:
        shape = model_shape(shape_id)
    out = roofline(shape, chip)
    if host_bandwidth is not None:
        out["host"] = {"bandwidth": host_bandwidth, "ceiling_tps": host_bandwidth / shape.weight_bytes}
    if local is not None:
        ceiling = None if host_bandwidth is None else host_bandwidth / local.weight_bytes
        out["local"] = {
            "model": local.label,
            "bytes_per_token": local.weight_bytes,
            "host_ceiling_tps": ceiling,
            "measured_tps": measured_tps,
            "share_of_ceiling": None if ceiling is None or measured_tps is None else measured_tps / ceiling,
        }
    return out


def measured_ratios(seconds: Sequence[float]) -> list[float]:
    """Measured forward times for k = 1, 2, … as ratios to the 1-token forward (`theory.verify_ratio`)."""
    ratios = [verify_ratio(seconds, gamma) for gamma in range(len(seconds))]
    if any(v is None for v in ratios):
        raise ValueError("measured forward times must be positive")
    return [v for v in ratios if v is not None]


def verify_cost_numbers(
    accelerator_id: str = DEFAULT_ACCELERATOR, shape_id: str = DEFAULT_SHAPE, batch: int = 1,
    measured_seconds: Sequence[float] | None = None, shape: ModelShape | None = None,
    run: tuple[float, int, float] | None = None,
) -> dict[str, Any]:
    """Screen 2: v(k) for k = 1…16 on the roofline, where it bends, the same on the chart's log axis
    (k = 1 … 512, `axis_k`), and a measured curve if any.

    With a measured curve and a run's (α, γ, c), also the run's speedup by Theorem 3.8 (v = 1)
    and with the measured v(γ+1): the same ratio that screen 10 takes as v.
    """
    chip = accelerator(accelerator_id)
    model = shape or model_shape(shape_id)
    bend = bend_tokens(chip, model.bits)
    out: dict[str, Any] = {
        "accelerator": chip.id,
        "shape": model.id,
        "batch": batch,
        "k": list(VERIFY_KS),
        "verify_ratio": [verify_cost_ratio(model, chip, k, batch) for k in VERIFY_KS],
        "intensity": [arithmetic_intensity(k * batch, model.bits) for k in VERIFY_KS],
        "ridge": chip.ridge,
        "bend_tokens": bend,
        "bend_k": None if bend is None else bend / batch,
        "axis_k": list(AXIS_KS),
        "axis_ratio": [verify_cost_ratio(model, chip, k, batch) for k in AXIS_KS],
    }
    if measured_seconds:
        ratios = measured_ratios(measured_seconds)
        out["measured_seconds"] = list(measured_seconds)
        out["measured_ratio"] = ratios
        if run is not None and run[1] < len(ratios):
            alpha, gamma, c = run
            v = ratios[gamma]  # a round verifies γ + 1 tokens
            out["run"] = {"alpha": alpha, "gamma": gamma, "c": c, "verify_ratio": v,
                          "speedup_v1": speedup(alpha, gamma, c), "speedup_measured_v": speedup(alpha, gamma, c, v)}
    return out
