"""The roofline figures: ridge points, bytes, ceilings and the verify cost ratio."""

from __future__ import annotations

import pytest

from specview.catalog.hardware import (
    ACCELERATORS,
    MODEL_SHAPES,
    accelerator,
    arithmetic_intensity,
    bend_tokens,
    measure_memory_bandwidth,
    model_shape,
    verify_cost_ratio,
)
from specview.features.learn.explain.roofline import gpu_wait_numbers, local_shape, verify_cost_numbers


def test_ridge_points_match_the_research_table() -> None:
    ridges = {"h100-sxm": 295, "h200": 206, "b200": 281, "mi300x": 247, "a100-80gb": 153, "rtx-4090": 164,
              "tpu-v5e": 241}
    for chip_id, ridge in ridges.items():
        assert accelerator(chip_id).ridge == pytest.approx(ridge, abs=1)
    assert accelerator("apple-m4-max").ridge is None
    assert len({a.id for a in ACCELERATORS}) == len(ACCELERATORS) == 8


def test_the_research_notes_worked_example() -> None:
    # research/numbers.md §3: Llama-3.1-8B BF16 on an H100: 16 GB / 3.35 TB/s = 4.8 ms, ~209 tok/s.
    n = gpu_wait_numbers("h100-sxm", "dense-8b-bf16")
    assert n["bytes_per_token"] == 16e9
    assert n["latency_s"] == pytest.approx(16e9 / 3.35e12)
    assert n["ceiling_tps"] == pytest.approx(209.4, abs=0.1)
    assert n["intensity"] == 1.0 and n["compute_idle"] == pytest.approx(1 - 1 / (989e12 / 3.35e12))


def test_quantised_and_moe_shapes() -> None:
    assert model_shape("dense-8b-q4").weight_bytes == pytest.approx(8e9 * 4.5 / 8)
    assert model_shape("deepseek-v3").weight_bytes == pytest.approx(37e9)
    assert arithmetic_intensity(1, 4.5) == pytest.approx(2 / 0.5625)
    assert gpu_wait_numbers("h100-sxm", "deepseek-v3")["fits_memory"] is False
    assert all(m.active_params <= m.total_params for m in MODEL_SHAPES)


def test_verify_cost_is_flat_until_the_ridge_then_linear() -> None:
    chip, shape = accelerator("h100-sxm"), model_shape("dense-8b-bf16")
    assert [verify_cost_ratio(shape, chip, k) for k in range(1, 17)] == [1.0] * 16
    bend = bend_tokens(chip, 16)
    assert bend == pytest.approx(chip.ridge)
    batch = 64
    n = verify_cost_numbers("h100-sxm", "dense-8b-bf16", batch)
    for k, v in zip(n["k"], n["verify_ratio"], strict=True):
        assert v == pytest.approx(max(1.0, k * batch / bend) / max(1.0, batch / bend))
    assert n["bend_k"] == pytest.approx(bend / batch)


def test_local_shape_and_this_machines_ceiling() -> None:
    shape = local_shape("tiny.gguf", 2e8, 1.5e8)
    n = gpu_wait_numbers("h100-sxm", "local", shape, host_bandwidth=1e10, measured_tps=20.0)
    assert n["bytes_per_token"] == 1.5e8 and n["bits"] == pytest.approx(6.0)
    assert n["local"]["host_ceiling_tps"] == pytest.approx(1e10 / 1.5e8)
    assert n["local"]["share_of_ceiling"] == pytest.approx(20 / (1e10 / 1.5e8))
    with pytest.raises(ValueError):
        gpu_wait_numbers("h100-sxm", "local")


def test_memory_bandwidth_is_measured() -> None:
    assert measure_memory_bandwidth(megabytes=16, repeats=2) > 1e8  # any machine copies 100 MB/s


def test_the_chart_axis_reaches_past_the_ridge_at_batch_1() -> None:
    # screen 2's log axis k = 1 … 512: an H100 reading BF16 bends at k ≈ 295, so v is 1 up to 256 and 512/295 at 512
    n = verify_cost_numbers("h100-sxm", "dense-8b-bf16", 1)
    assert n["axis_k"] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    assert n["bend_k"] == pytest.approx(295.2, abs=0.1)
    assert n["axis_ratio"][:9] == [1.0] * 9
    assert n["axis_ratio"][9] == pytest.approx(512 / n["bend_k"])
    assert n["verify_ratio"] == [1.0] * 16  # the numbers keep k = 1…16, what `m` measures
    # batch 16: the bend moves to k ≈ 18, inside the axis
    assert verify_cost_numbers("h100-sxm", "dense-8b-bf16", 16)["bend_k"] == pytest.approx(295.2 / 16, abs=0.01)
