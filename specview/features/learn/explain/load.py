"""Screen 11 · when it fails: under load the verify batch turns compute-bound.

At batch B a plain step costs t(B); a speculative round costs γ·c·t(B) for the drafts plus
t(B·(γ+1)) for the verify forward and yields τ tokens per sequence, so its speedup is
τ / (γc + v_B(γ+1)) with v_B(k) = t(B·k) / t(B) on the roofline of `core.hardware`. A preset whose
rounds draft a varying number k (a variable depth, rounds without a match) pays for the drafts it
makes and verifies k + 1 tokens: τ / (E[k]·c + E[v_B(k+1)]), at batch 1 (v = 1) the preset's own
speedup (`Preset.speedup_at`, as `specview presets` gives it). The formula is kernel/theory.py's
`speedup_of_tau`.
c is held at the preset's value and KV-cache reads are ignored: both flatter speculation,
which is why the cited measurements fall below this curve.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from specview.catalog.claims import load_claims
from specview.catalog.hardware import accelerator, model_shape, verify_cost_ratio
from specview.catalog.presets import get_preset
from specview.kernel.theory import speedup_of_tau

DEFAULT_ACCELERATOR = "h100-sxm"
DEFAULT_SHAPE = "dense-8b-bf16"
DEFAULT_PRESET = "eagle3"
BATCHES = (1, 2, 4, 8, 16, 24, 32, 48, 64, 128, 256, 512)  # powers of two and the cited batch sizes
MAX_BATCH = 4096
VLLM_SLOWDOWN = load_claims()["vllm-load-slowdown"].high or 1.8  # the cited "up to 1.8× slower" (texts/claims.toml)


@dataclass(frozen=True, slots=True)
class CitedLoadPoint:
    """A cited measurement of speedup at a load."""

    series: str
    load: float
    axis: str  # "batch" (same axis as the curve) or "qps" (drawn as a reference line)
    speedup: float
    source: str


CITED: tuple[CitedLoadPoint, ...] = (
    # EAGLE-3 (arXiv 2503.01840) Table 3: SGLang on H100, LLaMA-3.1-8B, chain length 3, throughput vs batch.
    *(CitedLoadPoint("eagle3-sglang", b, "batch", s, "EAGLE-3 Table 3 (SGLang, H100, LLaMA-3.1-8B)")
      for b, s in ((2, 1.81), (24, 1.39), (48, 1.38), (64, 1.38))),
    *(CitedLoadPoint("eagle-sglang", b, "batch", s, "EAGLE-3 Table 3 (SGLang, H100, LLaMA-3.1-8B)")
      for b, s in ((2, 1.40), (24, 0.93), (48, 0.88), (64, 0.99))),
    # vLLM blog 2024-10-17: Llama3-70B on 4×H100, high QPS, CNN/DailyMail: "1.8× slowdown".
    CitedLoadPoint("vllm-high-qps", 0.0, "qps", 1.0 / VLLM_SLOWDOWN,
                   "vLLM blog 2024-10-17 (Llama3-70B, 4×H100, CNN/DM)"),
)


def load_numbers(
    accelerator_id: str = DEFAULT_ACCELERATOR, shape_id: str = DEFAULT_SHAPE, preset_id: str = DEFAULT_PRESET,
    batch: int = 1,
) -> dict[str, Any]:
    """Speedup against batch size for a preset on a chip, the crossover below 1×, and cited points."""
    chip, shape, preset = accelerator(accelerator_id), model_shape(shape_id), get_preset(preset_id)
    gamma, c = preset.gamma, preset.c
    tau = preset.tau_at(preset.temperature)  # the preset's own τ, as `specview presets` gives it
    shares, drafted = preset.drafted_shares(), preset.mean_drafted()

    def verify(b: int) -> float:  # E[v_B(k+1)] over the drafts k a round makes: v_B(γ+1) at a fixed depth
        return sum(w * verify_cost_ratio(shape, chip, k + 1, b) for k, w in enumerate(shares) if w)

    def at(b: int) -> float:
        return speedup_of_tau(tau, drafted, c, verify(b))

    crossover = next((b for b in range(1, MAX_BATCH + 1) if at(b) < 1.0), None)
    return {
        "accelerator": chip.id,
        "shape": shape.id,
        "preset": preset.id,
        "gamma": gamma,
        "c": c,
        "tau": tau,
        "mean_drafted": drafted,
        "fixed_depth": shares[-1] == 1.0,
        "batch": batch,
        "speedup": at(batch),
        "verify_ratio": verify(batch),
        "batches": list(BATCHES),
        "curve": [at(b) for b in BATCHES],
        "crossover_batch": crossover,
        "cited": [
            {"series": p.series, "load": p.load, "axis": p.axis, "speedup": p.speedup, "source": p.source}
            for p in CITED
        ],
        "vllm_slowdown": VLLM_SLOWDOWN,
    }
