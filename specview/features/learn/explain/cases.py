"""Screen 9 · case studies: Qwen 3.6 and GLM-5.2 (MTP built in) against Gemma 4 (a drafter shipped beside).

The numeric cells come from the presets (their cited figures) and Theorem 3.8; the words of
each cell are catalog texts.
"""

from __future__ import annotations

from typing import Any

from specview.catalog.claims import load_claims, preset_value
from specview.catalog.presets import Preset, get_preset, load_presets
from specview.kernel.theory import speedup, tau_from_positions

COLUMNS = ("qwen3.6-mtp", "gemma4-drafter", "glm-5.2-mtp")
ROWS = ("school", "form", "coupling", "training", "deploy")
# Architecture facts the cells quote, with their sources.
FORM: dict[str, dict[str, Any]] = {
    "qwen3.6-mtp": {"blocks": 1, "source": "Qwen3.6 config: mtp_num_hidden_layers = 1"},
    "gemma4-drafter": {"layers": 4, "source": "google/gemma-4-31B-it-assistant config: 3 sliding + 1 global layer"},
    "glm-5.2-mtp": {"source": "GLM-5.2 blog: one weight-shared block unrolled over the MTP steps"},
}


def case_numbers(selected: int = 0) -> dict[str, Any]:
    """Per column: γ, T, per-position acceptance, τ, c, the Theorem 3.8 speedup and source tags."""
    if not 0 <= selected < len(COLUMNS):
        raise ValueError(f"selected must be in [0, {len(COLUMNS)}), got {selected}")
    columns = []
    presets = load_presets()  # once: it reads the user's preset files afresh
    for preset_id in COLUMNS:
        p = presets[preset_id] if preset_id in presets else get_preset(preset_id)
        acceptance = p.acceptance_at(p.temperature)
        tau = tau_from_positions(acceptance)
        columns.append({
            "preset": p.id,
            "method": p.method,
            "gamma": p.gamma,
            "temperature": p.temperature,
            "acceptance": acceptance,
            "mean_acceptance": sum(acceptance) / len(acceptance),
            "tau": tau,
            "c": p.c,
            "speedup": tau / (p.gamma * p.c + 1.0),
            "speedup_iid": speedup(sum(acceptance) / len(acceptance), p.gamma, p.c),
            "sources": sorted({s.tag for s in p.sources}),
            "form": {k: v for k, v in FORM[preset_id].items() if k != "source"},
            "form_source": FORM[preset_id]["source"],
            "claims": cited_claims(p),
        })
    return {"columns": columns, "rows": list(ROWS), "selected": selected}


def cited_claims(p: Preset) -> list[dict[str, Any]]:
    """The published figures (texts/claims.toml) a preset's numbers rest on, each with the preset's
    own value under the claim's conditions and whether they agree (a finding says why not)."""
    claims = load_claims()
    findings = {f.claim: f.text for f in p.findings}
    ids = dict.fromkeys([cid for source in p.provenance.values() for cid in source.claims] + list(findings))
    out = []
    for cid in ids:
        claim = claims[cid]
        value = preset_value(p, claim)
        out.append({
            "id": cid,
            "quantity": claim.quantity,
            "stated": claim.stated(),
            "text": claim.text,
            "text_zh": claim.text_zh,
            "preset": list(value) if isinstance(value, tuple) else value,
            "agrees": None if value is None else claim.agrees(value),
            "finding": findings.get(cid),
        })
    return out
