"""Screen 7 · MTP, two schools: parallel heads and sequential modules, and acceptance by distance.

Parallel heads (Gloeckle et al. 2024, Medusa) all read the same final hidden state, so head k
guesses token t+k without seeing guesses 1…k−1. Sequential modules (DeepSeek-V3, Qwen) feed
each step the previous step's state and the embedding of the token before, keeping the causal
chain. Either way a draft at depth k is used only if drafts 1…k all pass: survival
S_k = Π_{i≤k} a_i, which is why acceptance "falls with distance" even at constant a_i.
"""

from __future__ import annotations

from typing import Any

from specview.catalog.presets import load_presets
from specview.kernel.theory import conditional_from_marginal, survival, tau_from_positions

# Medusa-1 heads on Vicuna-7B, top-1 accuracy of head k at training time: marginal, not conditional.
# Source: FasterDecoding/Medusa assets/medusa_acc.csv [authors].
MEDUSA_HEAD_TOP1 = (0.56, 0.32, 0.20, 0.15, 0.12)
MEDUSA_SOURCE = "FasterDecoding/Medusa assets/medusa_acc.csv (Vicuna-7B heads, authors)"

SCHOOL = {
    "mtp-parallel": "parallel",
    "medusa": "parallel",
    "mtp-sequential": "sequential",
    "eagle": "sequential",
    "draft-model": "sequential",
    "ngram": "lookup",
}
DIAGRAM_STEPS = 4  # each diagram is shown in four steps


def mtp_numbers(step: int = 0, selected: int = 0) -> dict[str, Any]:
    """Survival P(drafts 1…k pass) per preset, the selected preset, and Medusa's heads made conditional."""
    if not 0 <= step < DIAGRAM_STEPS:
        raise ValueError(f"step must be in [0, {DIAGRAM_STEPS}), got {step}")
    rows = []
    for preset in load_presets().values():
        acceptance = preset.acceptance_at(preset.temperature)
        rows.append({
            "id": preset.id,
            "method": preset.method,
            "school": SCHOOL.get(preset.method, "other"),
            "gamma": preset.gamma,
            "acceptance": acceptance,
            "survival": survival(acceptance),
            "tau": tau_from_positions(acceptance),
        })
    if not 0 <= selected < len(rows):
        raise ValueError(f"selected must be in [0, {len(rows)}), got {selected}")
    return {
        "step": step,
        "steps": DIAGRAM_STEPS,
        "presets": rows,
        "selected": selected,
        "medusa_heads": {
            "marginal": list(MEDUSA_HEAD_TOP1),
            "conditional": conditional_from_marginal(MEDUSA_HEAD_TOP1),
            "source": MEDUSA_SOURCE,
        },
    }
