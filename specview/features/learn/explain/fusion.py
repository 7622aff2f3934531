"""Screen 8 · feature–token fusion: concat-then-project, as shapes, for five drafter families.

Each drafter joins feature inputs (hidden states of chosen trunk layers) and token inputs
(embeddings), each through its own norm, concatenates them and projects from the summed width
to the drafter's width d_draft: W [d_draft × Σ d_i]. Split W into column blocks W_i and the
same map is Σ_i W_i z_i — a sum of per-input projections (additive, no cross terms).
Shapes are (rows, columns) = (out, in), numpy order, as in a GGUF's `eh_proj` (n_embd, 2·n_embd).
"""

from __future__ import annotations

from typing import Any

VARIANTS = ("medusa", "eagle", "eagle3", "in-trunk", "gemma4")
D_MODELS = (2048, 4096, 5120, 7168, 8192)
DRAFT_RATIOS = (0.125, 0.25, 0.5)
DEFAULT_VARIANT = "in-trunk"
DEFAULT_D_MODEL = 4096
DEFAULT_RATIO = 0.25


def _projection(name: str, inputs: list[tuple[str, int]], out: int) -> dict[str, Any]:
    width = sum(dim for _, dim in inputs)
    return {
        "name": name,
        "inputs": [{"name": n, "dim": d} for n, d in inputs],
        "shape": [out, width],
        "params": out * width,
        "blocks": [{"input": n, "shape": [out, d]} for n, d in inputs],
    }


def fusion_numbers(variant: str = DEFAULT_VARIANT, d_model: int = DEFAULT_D_MODEL,
                   draft_ratio: float = DEFAULT_RATIO) -> dict[str, Any]:
    """Inputs, concatenated width, projection shapes and parameters of one drafter family."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if d_model <= 0 or not 0 < draft_ratio <= 1:
        raise ValueError("d_model must be positive and draft_ratio in (0, 1]")
    d = d_model
    d_draft = d
    feature, token = ("h", d), ("e", d)
    if variant == "medusa":
        projections: list[dict[str, Any]] = []  # |T| = 0: heads read h alone, no fusion
        inputs = [feature]
    elif variant == "eagle":
        inputs = [feature, token]
        projections = [_projection("fc", inputs, d)]
    elif variant == "eagle3":
        layers = [("h_low", d), ("h_mid", d), ("h_high", d)]
        inputs = [*layers, token]
        # EAGLE-3 first folds its three feature layers into one, then joins the token: two maps of one form.
        projections = [_projection("fc", layers, d), _projection("join", [("g", d), token], d)]
    elif variant == "in-trunk":
        inputs = [feature, token]
        projections = [_projection("eh_proj", inputs, d)]
    else:  # gemma4: a narrower separate drafter that reuses the target's KV cache
        d_draft = max(1, int(d * draft_ratio))
        inputs = [feature, token]
        projections = [_projection("proj", inputs, d_draft)]
    return {
        "variant": variant,
        "d_model": d,
        "d_draft": d_draft,
        "draft_ratio": draft_ratio if variant == "gemma4" else None,
        "inputs": [{"name": n, "dim": dim} for n, dim in inputs],
        "token_input": variant != "medusa",
        "feature_layers": 3 if variant == "eagle3" else 1,
        "concat_dim": sum(dim for _, dim in inputs),
        "projections": projections,
        "params": sum(p["params"] for p in projections),
        "shares_kv_cache": variant == "gemma4",
        "shares_width": d_draft == d,
    }


def gguf_fusion_check(shapes: list[tuple[str, tuple[int, ...]]], n_embd: int | None) -> list[dict[str, Any]]:
    """For each fusion tensor read from a GGUF: its shape and whether it is the in-trunk (d, 2d) map."""
    expected = None
    if n_embd:
        expected = fusion_numbers("in-trunk", n_embd)["projections"][0]["shape"]
    return [
        {"name": name, "shape": list(shape),
         "in_trunk": expected is not None and "eh_proj" in name and list(shape) == expected}
        for name, shape in shapes
    ]
