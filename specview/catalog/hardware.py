"""Accelerators and model shapes for the roofline lessons, with where each figure comes from.

Peak figures are vendor datasheet numbers, each entry naming where it was read (`source`); ridge
points are derived (FLOP/s ÷ B/s). A forward of n tokens
reads the active weights once and does 2 FLOPs per parameter per token, so its time is
max(bytes ÷ bandwidth, 2·params·n ÷ FLOP/s): the roofline, ignoring KV-cache reads and
kernel overheads (both make real numbers worse, never better).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

# Source tags, as in the presets: vendor / authors / independent / derived.


@dataclass(frozen=True, slots=True)
class Accelerator:
    """One chip: memory bandwidth, dense BF16 peak (None where the vendor publishes none)."""

    id: str
    label: str
    bandwidth: float  # bytes per second
    bf16_flops: float | None  # dense FLOP per second
    memory_gb: float | None
    source: str

    @property
    def ridge(self) -> float | None:
        """FLOP per byte at which the chip stops waiting for memory (derived)."""
        return None if self.bf16_flops is None else self.bf16_flops / self.bandwidth


ACCELERATORS: tuple[Accelerator, ...] = (
    Accelerator("h100-sxm", "NVIDIA H100 SXM", 3.35e12, 989e12, 80,
                "inferenceengineering.tech cheat sheet; regantih H100/B200 page (vendor datasheet)"),
    Accelerator("h200", "NVIDIA H200", 4.8e12, 989e12, 141,
                "inferenceengineering.tech cheat sheet; alpharomercoma MI300X-vs-H200 METHODOLOGY.md"),
    Accelerator("b200", "NVIDIA B200", 8.0e12, 2250e12, 192,
                "inferenceengineering.tech cheat sheet; modal.com GPU glossary (dense; 4.5 PF with sparsity)"),
    Accelerator("mi300x", "AMD MI300X", 5.3e12, 1307.4e12, 192,
                "alpharomercoma MI300X-vs-H200 METHODOLOGY.md; Vultr docs"),
    Accelerator("a100-80gb", "NVIDIA A100 SXM 80 GB", 2.039e12, 312e12, 80,
                "cloud-atlas A100 note; Modal glossary"),
    Accelerator("rtx-4090", "NVIDIA RTX 4090", 1.008e12, 165e12, 24,
                "gist mikasenghaas 'accelerator intensity' (165 TF with FP32 accumulate)"),
    Accelerator("apple-m4-max", "Apple M4 Max (top bin)", 546e9, None, None,
                "Apple launch coverage (notebookcheck); Apple publishes no BF16 figure"),
    Accelerator("tpu-v5e", "Google TPU v5e", 819e9, 197e12, 16, "cloud.google.com/tpu/docs/v5e"),
)


@dataclass(frozen=True, slots=True)
class ModelShape:
    """What one forward reads: the active parameters and the bits each is stored in."""

    id: str
    label: str
    active_params: float
    total_params: float
    bits: float  # stored bits per weight, scales included
    source: str

    @property
    def weight_bytes(self) -> float:
        """Bytes of weights read per forward (the active ones)."""
        return self.active_params * self.bits / 8.0


# GGUF block formats fix the bits: Q8_0 is 32 int8 + one fp16 scale = 34 bytes per 32 weights
# (8.5 bits); Q4_0 is 16 bytes of nibbles + one fp16 scale = 18 bytes per 32 weights (4.5 bits).
MODEL_SHAPES: tuple[ModelShape, ...] = (
    ModelShape("dense-8b-bf16", "dense 8B · BF16", 8.0e9, 8.0e9, 16.0, "Llama-3.1-8B class; 2 bytes a weight"),
    ModelShape("dense-8b-q8", "dense 8B · Q8_0", 8.0e9, 8.0e9, 8.5, "GGUF Q8_0 block: 34 bytes per 32 weights"),
    ModelShape("dense-8b-q4", "dense 8B · Q4_0", 8.0e9, 8.0e9, 4.5, "GGUF Q4_0 block: 18 bytes per 32 weights"),
    ModelShape("moe-26b-a4b", "MoE 26B, 4B active · BF16", 4.0e9, 26.0e9, 16.0,
               "Gemma 4 26B-A4B, active share from its name"),
    ModelShape("deepseek-v3", "MoE 671B, 37B active · FP8", 37e9, 671e9, 8.0,
               "DeepSeek-V3 report (arXiv 2412.19437): 671B total, 37B active, FP8 weights"),
)


def accelerator(accelerator_id: str) -> Accelerator:
    """The accelerator with this id (KeyError naming the known ones otherwise)."""
    for item in ACCELERATORS:
        if item.id == accelerator_id:
            return item
    raise KeyError(f"unknown accelerator {accelerator_id!r}; known: {', '.join(a.id for a in ACCELERATORS)}")


def model_shape(shape_id: str) -> ModelShape:
    """The model shape with this id."""
    for item in MODEL_SHAPES:
        if item.id == shape_id:
            return item
    raise KeyError(f"unknown model shape {shape_id!r}; known: {', '.join(m.id for m in MODEL_SHAPES)}")


def arithmetic_intensity(tokens: float, bits: float) -> float:
    """FLOP per byte of weights when one forward carries `tokens` tokens: 2·tokens ÷ bytes per weight."""
    if tokens <= 0 or bits <= 0:
        raise ValueError("tokens and bits must be positive")
    return 2.0 * tokens / (bits / 8.0)


def forward_time_s(shape: ModelShape, chip: Accelerator, tokens: float) -> float:
    """Roofline time of one forward over `tokens` tokens: the slower of reading and computing."""
    read = shape.weight_bytes / chip.bandwidth
    if chip.bf16_flops is None:
        return read  # no compute figure: only the memory side can be placed
    return max(read, 2.0 * shape.active_params * tokens / chip.bf16_flops)


def verify_cost_ratio(shape: ModelShape, chip: Accelerator, k: int, batch: int = 1) -> float:
    """v(k): cost of a forward over k tokens per sequence ÷ cost of 1 token, at this batch size."""
    if k < 1 or batch < 1:
        raise ValueError("k and batch must be at least 1")
    return forward_time_s(shape, chip, k * batch) / forward_time_s(shape, chip, batch)


def bend_tokens(chip: Accelerator, bits: float) -> float | None:
    """Tokens per forward at which the intensity reaches the ridge (where v(k) starts to rise)."""
    ridge = chip.ridge
    return None if ridge is None else ridge * (bits / 8.0) / 2.0


COPY_MB = 256  # the buffer `measure_memory_bandwidth` copies


def measure_memory_bandwidth(megabytes: int = COPY_MB, repeats: int = 5) -> float:
    """This machine's copy bandwidth in bytes/s: best of `repeats` copies of a buffer (read + write)."""
    import numpy as np

    src = np.ones(megabytes * 1024 * 1024 // 8)
    dst = np.empty_like(src)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    return 2.0 * src.nbytes / best  # a copy reads and writes every byte
