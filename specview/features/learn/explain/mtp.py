"""Screen 7 · MTP, two schools: parallel heads and sequential modules, and acceptance by distance.

Parallel heads (Gloeckle et al. 2024, Medusa) all read the same final hidden state, so head k
guesses token t+k without seeing guesses 1…k−1. Sequential modules (DeepSeek-V3, Qwen) feed
each step the previous step's state and the embedding of the token before, keeping the causal
chain. Either way a draft at depth k is used only if drafts 1…k all pass: survival
S_k = Π_{i≤k} a_i, which is why acceptance "falls with distance" even at constant a_i.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specview.catalog.presets import load_presets
from specview.kernel.theory import conditional_from_marginal, survival, tau_from_positions
from specview.methods.registry import methods

# Medusa-1 heads on Vicuna-7B, top-1 accuracy of head k at training time: marginal, not conditional.
# Source: FasterDecoding/Medusa assets/medusa_acc.csv [authors].
MEDUSA_HEAD_TOP1 = (0.56, 0.32, 0.20, 0.15, 0.12)
MEDUSA_SOURCE = "FasterDecoding/Medusa assets/medusa_acc.csv (Vicuna-7B heads, authors)"

# DeepSeek-V3 technical report §5.4.3 and §2.2 (arXiv 2412.19437), as the source article quotes them:
# (catalog name, figure, where it comes from). Tags are the screen's provenance words.
DEEPSEEK_V3 = (
    ("second_token", "85–90 %", "cited"),
    ("speedup", "≈ 1.8×", "cited"),
    ("depth", "1", "cited"),
    ("tokens", "14.8T", "cited"),
)
DIAGRAM_STEPS = 4  # each diagram is shown in four steps


def mtp_numbers(step: int = 0, selected: int = 0, preset_ids: Sequence[str] | None = None) -> dict[str, Any]:
    """Survival P(drafts 1…k pass) per preset (every one, or `preset_ids` in that order), the selected preset,
    and Medusa's heads made conditional."""
    if not 0 <= step < DIAGRAM_STEPS:
        raise ValueError(f"step must be in [0, {DIAGRAM_STEPS}), got {step}")
    rows = []
    presets = load_presets()
    for preset in presets.values() if preset_ids is None else (presets[p] for p in preset_ids):
        acceptance = preset.acceptance_at(preset.temperature)
        rows.append({
            "id": preset.id,
            "method": preset.method,
            "school": methods()[preset.method].school,  # each method unit declares its own (specview/methods/)
            "gamma": preset.gamma,
            "acceptance": acceptance,
            "acceptance_kind": preset.field_source("acceptance").kind,
            "survival": survival(acceptance),
            # the preset's own τ (what `specview presets` prints): a mixture's rounds without a match add 1 token
            "tau": preset.tau_at(preset.temperature),
            "tau_chain": tau_from_positions(acceptance),
            "match_rate": preset.match_rate,
        })
    if not 0 <= selected < len(rows):
        raise ValueError(f"selected must be in [0, {len(rows)}), got {selected}")
    return {
        "step": step,
        "steps": DIAGRAM_STEPS,
        "presets": rows,
        "selected": selected,
        "deepseek_v3": [{"name": n, "value": v, "kind": k} for n, v, k in DEEPSEEK_V3],
        "medusa_heads": {
            "marginal": list(MEDUSA_HEAD_TOP1),
            "conditional": conditional_from_marginal(MEDUSA_HEAD_TOP1),
            "source": MEDUSA_SOURCE,
        },
    }
