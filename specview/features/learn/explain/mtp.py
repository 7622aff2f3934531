"""Screen 7 · MTP, two schools: parallel heads and sequential modules, and acceptance by distance.

Parallel heads (Gloeckle et al. 2024, Medusa) all read the same final hidden state, so head k
guesses token t+k without seeing guesses 1…k−1. Sequential modules (DeepSeek-V3, Qwen) feed
each step the previous step's state and the embedding of the token before, keeping the causal
chain.

What every preset's row shows is one quantity, whatever its method: R_k = P(draft k is kept), the
chance that a round drafts k tokens or more (its reach, P(D ≥ k)) and that drafts 1…k all pass
(survival S_k = Π_{i≤k} a_i). Then τ = 1 + Σ_k R_k for every preset, the same τ `specview
presets` prints (Preset.tau_at). For a fixed γ the reach is 1 and R_k = S_k, which is why acceptance
"falls with distance" even at a constant a_i; a lookup that finds no match, a match of varying
length or a confidence head that verifies fewer drafts lowers the reach. The printed terms are
rounded so that they add up to the printed τ (largest remainders): an equation on screen adds up.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from specview.catalog.presets import Preset, load_presets
from specview.kernel.theory import survival
from specview.methods.registry import methods

SHOWN_K = 7  # positions a row shows; the rest (suffix's 16, ngram's 10) are summed into one tail term
# Medusa-1 heads on Vicuna-7B, top-1 accuracy of head k at training time: marginal, not conditional.
# Source: FasterDecoding/Medusa assets/medusa_acc.csv [authors].
MEDUSA_HEAD_TOP1 = (0.56, 0.32, 0.20, 0.15, 0.12)
MEDUSA_SOURCE = "FasterDecoding/Medusa assets/medusa_acc.csv (Vicuna-7B heads, authors)"

# DeepSeek-V3 technical report §5.4.3, §2.2 and §4.2 (arXiv 2412.19437), the first three as the source article
# quotes them: (catalog name, figure, where it comes from). Tags are the screen's provenance words. The MTP loss
# weight λ is annealed (the article's word): 0.3 for the first 10T training tokens, 0.1 for the remaining 4.8T.
DEEPSEEK_V3 = (
    ("second_token", "85–90 %", "cited"),
    ("speedup", "≈ 1.8×", "cited"),
    ("depth", "1", "cited"),
    ("tokens", "14.8T", "cited"),
    ("lambda_first", "0.3", "cited"),
    ("lambda_then", "0.1", "cited"),
    ("lambda_switch", "10T", "cited"),
)
DIAGRAM_STEPS = 4  # each diagram is shown in four steps
# What a preset's numbers are, by the parts it has (checked in this order):
#   mixture         prompt lookup: a share m of rounds find a match and draft γ, the rest draft nothing
#   variable-depth  a match of varying length (suffix decoding): the reach is P(match ≥ k)
#   verify-length   a block whose verified prefix a confidence head picks (DSpark): the reach is P(verify ≥ k)
#   parallel        heads published as marginal accuracies, made conditional by assuming nested events: a bound
#   tree            candidates per depth: a_k is the depth's, 1 − (1 − a)^branches
#   chain           one chain of γ drafts every round: R_k = S_k
KINDS = ("mixture", "variable-depth", "verify-length", "parallel", "tree", "chain")
CENT = Decimal("0.01")


def kind_of(preset: Preset) -> str:
    """What the preset's per-position numbers are (see KINDS)."""
    if preset.match_rate is not None:
        return "mixture"
    if preset.shape.depth is not None:
        return "verify-length" if preset.shape.block is not None else "variable-depth"
    if methods()[preset.method].school == "parallel":
        return "parallel"
    return "tree" if preset.shape.branches > 1 else "chain"


def reach(preset: Preset, gamma: int | None = None) -> list[float]:
    """P(a round drafts k tokens or more), k = 1…γ: 1 for a fixed γ, the match rate for a mixture, the tail sums
    of the depth weights where the length varies (the same weights Preset.tau_at and mean_drafted read)."""
    gamma = preset.gamma if gamma is None else gamma
    depth = preset.shape.depth_at(gamma)
    if depth is not None:
        return [sum(depth[k:]) for k in range(1, gamma + 1)]
    rate = preset.match_rate
    return [1.0 if rate is None else rate] * gamma


def kept(preset: Preset) -> list[float]:
    """R_k = P(draft k is kept) = P(D ≥ k) · S_k at the preset's own γ and temperature; 1 + Σ R_k is its τ."""
    return [r * s for r, s in zip(reach(preset), survival(preset.acceptance_at(preset.temperature)), strict=True)]


def cents(values: Sequence[float], total: Decimal) -> list[Decimal]:
    """`values` rounded to hundredths so that they add up to `total` exactly: each rounded down, and the
    hundredths still missing given to the largest remainders (each stays within 0.01 of its value)."""
    exact = [Decimal(repr(v)) for v in values]
    floors = [(x / CENT).to_integral_value(rounding="ROUND_FLOOR") for x in exact]
    missing = int((total / CENT) - sum(floors))
    order = sorted(range(len(exact)), key=lambda i: (exact[i] / CENT - floors[i], -i), reverse=True)
    for i in order[:max(0, missing)]:
        floors[i] += 1
    return [f * CENT for f in floors]


def printed_terms(terms: Sequence[float], tau: float) -> dict[str, Any]:
    """The τ equation as the screen prints it: τ to three decimals, the first SHOWN_K terms and one tail term (the
    positions beyond) to two, rounded so that 1 + Σ shown + tail is τ at two decimals (half up, as printed)."""
    total = f"{tau:.3f}"
    target = Decimal(total).quantize(CENT, rounding=ROUND_HALF_UP) - 1
    parts = [*terms[:SHOWN_K]] + ([sum(terms[SHOWN_K:])] if len(terms) > SHOWN_K else [])
    rounded = cents(parts, target)
    shown = rounded[:SHOWN_K]
    tail = rounded[SHOWN_K] if len(terms) > SHOWN_K else None
    return {
        "total": total,
        "terms": [f"{x:.2f}" for x in shown],
        "shown_sum": f"{sum(shown, Decimal(0)):.2f}",
        "tail": None if tail is None else f"{tail:.2f}",
        "tail_from": SHOWN_K + 1 if tail is not None else None,
        "tail_to": len(terms) if tail is not None else None,
    }


def preset_row(preset: Preset) -> dict[str, Any]:
    """One preset's numbers on screen 7: what they are (kind), a_k, S_k, the reach, R_k, τ and how τ is printed."""
    acceptance = preset.acceptance_at(preset.temperature)
    kind = kind_of(preset)
    terms = kept(preset)
    tau = preset.tau_at(preset.temperature)  # the preset's own τ (what `specview presets` prints)
    source = preset.field_source("acceptance").kind
    return {
        "id": preset.id,
        "method": preset.method,
        "school": methods()[preset.method].school,  # each method unit declares its own (specview/methods/)
        "kind": kind,
        "gamma": preset.gamma,
        "acceptance": acceptance,
        # marginals made conditional under nested events are an assumption, whatever the preset's own word
        "acceptance_kind": "assumed" if kind == "parallel" else source,
        "survival": survival(acceptance),
        "reach": reach(preset),
        "reach_kind": "derived" if kind == "mixture" else preset.field_source("depth").kind,
        "match_rate": preset.match_rate,
        "kept": terms,
        "tau": tau,
        "tau_bound": kind == "parallel",  # τ ≤: the chain of heads reaches it only under nested events
        "printed": printed_terms(terms, tau),
    }


def mtp_numbers(step: int = 0, selected: int = 0, preset_ids: Sequence[str] | None = None) -> dict[str, Any]:
    """P(draft k kept) per preset (every one, or `preset_ids` in that order), the selected preset, DeepSeek-V3's
    figures and Medusa's heads (marginal, with the bound they put on a chain)."""
    if not 0 <= step < DIAGRAM_STEPS:
        raise ValueError(f"step must be in [0, {DIAGRAM_STEPS}), got {step}")
    presets = load_presets()
    rows = [preset_row(p) for p in (presets.values() if preset_ids is None else (presets[i] for i in preset_ids))]
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
            # heads 1…k all right is no more likely than the least likely of them alone: S_k ≤ min marginal
            "survival_at_most": [min(MEDUSA_HEAD_TOP1[: k + 1]) for k in range(len(MEDUSA_HEAD_TOP1))],
            "source": MEDUSA_SOURCE,
        },
    }


def mtp_numbers_for(preset_id: str) -> dict[str, Any]:
    """What screen 7 shows for one preset (`learn 7 --json --preset ID`): its row, selected, with the rest."""
    ids = list(load_presets())
    if preset_id not in ids:
        raise KeyError(preset_id)
    return mtp_numbers(0, ids.index(preset_id), ids)
