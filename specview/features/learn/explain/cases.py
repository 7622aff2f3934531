"""Screen 9 · case studies: Qwen 3.6 and GLM-5.2 (MTP built in) against Gemma 4 (a drafter shipped beside).

The numeric cells come from the presets (their cited figures) and Theorem 3.8; the words of
each cell are catalog texts.
"""

from __future__ import annotations

from typing import Any

from specview.catalog.claims import load_claims, preset_value
from specview.catalog.presets import Preset, get_preset, load_presets
from specview.kernel.theory import speedup

COLUMNS = ("qwen3.6-mtp", "gemma4-drafter", "glm-5.2-mtp")
ROWS = ("school", "form", "coupling", "training", "deploy")
# Architecture facts the cells quote, with their sources.
FORM: dict[str, dict[str, Any]] = {
    "qwen3.6-mtp": {"blocks": 1, "source": "Qwen3.6 config: mtp_num_hidden_layers = 1"},
    "gemma4-drafter": {"layers": 4, "source": "google/gemma-4-31B-it-assistant config: 3 sliding + 1 global layer"},
    "glm-5.2-mtp": {"source": "GLM-5.2 blog: one weight-shared block unrolled over the MTP steps"},
}
# The gains the article reports beside each design (its "报告收益" row), as the claims that state them: the name a
# cell's text fills, and the claim. Qwen's are third-party, Gemma's and GLM's the vendor's.
REPORTED: dict[str, dict[str, str]] = {
    "qwen3.6-mtp": {"low": "qwen36-speedup-t1", "high": "qwen36-speedup-t01"},
    "gemma4-drafter": {"most": "gemma4-speedup-max", "apple": "gemma4-apple-silicon"},
    "glm-5.2-mtp": {"tau": "glm52-accept-length"},
}


def reported_gains(preset_id: str) -> dict[str, Any]:
    """What the article reports for one column's design: each figure by name (a bound's limit where the claim is one
    sided), the γ it was stated at, and who reported it (the claims' source tags)."""
    claims = load_claims()
    named = {name: claims[cid] for name, cid in REPORTED[preset_id].items()}
    figures = {name: c.value if c.value is not None else c.high if c.high is not None else c.low
               for name, c in named.items()}
    gammas = {c.gamma for c in named.values() if c.gamma is not None}
    return {"figures": figures, "gamma": min(gammas) if gammas else None,
            "by": sorted({c.tag for c in named.values()}), "claims": list(REPORTED[preset_id].values())}


def case_numbers(selected: int = 0) -> dict[str, Any]:
    """Per column: γ, T, per-position acceptance, τ, c, the Theorem 3.8 speedup, where each comes from
    (`kinds`: cited / derived / assumed) and source tags."""
    if not 0 <= selected < len(COLUMNS):
        raise ValueError(f"selected must be in [0, {len(COLUMNS)}), got {selected}")
    columns = []
    presets = load_presets()  # once: it reads the user's preset files afresh
    for preset_id in COLUMNS:
        p = presets[preset_id] if preset_id in presets else get_preset(preset_id)
        acceptance = p.acceptance_at(p.temperature)
        tau = p.tau_at(p.temperature)  # the preset's own τ, as `specview presets` gives it
        columns.append({
            "preset": p.id,
            "method": p.method,
            "gamma": p.gamma,
            "temperature": p.temperature,
            "acceptance": acceptance,
            "mean_acceptance": sum(acceptance) / len(acceptance),
            "tau": tau,
            "c": p.c,
            "speedup": p.speedup_at(p.temperature),  # the preset's own, as `specview presets` gives it
            "speedup_iid": speedup(sum(acceptance) / len(acceptance), p.gamma, p.c),
            "sources": sorted({s.tag for s in p.sources}),
            "kinds": {name: p.field_source(name).kind for name in ("gamma", "temperature", "acceptance", "c")}
            | {"tau": "derived", "speedup": "derived"},
            "form": {k: v for k, v in FORM[preset_id].items() if k != "source"},
            "form_source": FORM[preset_id]["source"],
            "claims": cited_claims(p),
            "reported": reported_gains(preset_id),
        })
    return {"columns": columns, "rows": list(ROWS), "selected": selected}


def cited_claims(p: Preset) -> list[dict[str, Any]]:
    """The published figures (its method's claims, catalog/claims.py) a preset's numbers rest on, each with the preset's
    own value under the claim's conditions, whether they agree (a finding says why not) and its role:
    "input" (the preset was built from it), "bound" (a one-sided limit) or "check" (reproduced or not)."""
    claims = load_claims()
    findings = {f.claim: f.text for f in p.findings}
    inputs = {cid for source in p.provenance.values() for cid in source.claims}
    ids = dict.fromkeys([cid for source in p.provenance.values() for cid in source.claims] + list(findings))
    out = []
    for cid in ids:
        claim = claims[cid]
        value = preset_value(p, claim)
        agrees = None if value is None else claim.agrees(value)
        one_sided = claim.value is None and not claim.values and (claim.low is None or claim.high is None)
        # A figure the preset was built from agrees by construction, and one inside a bound is not that figure:
        # only the rest, agreeing, are reproduced.
        role = "input" if cid in inputs and not one_sided else "bound" if one_sided else "check"
        out.append({
            "id": cid,
            "quantity": claim.quantity,
            "stated": claim.stated(),
            "text": claim.text,
            "text_zh": claim.text_zh,
            "preset": list(value) if isinstance(value, tuple) else value,
            "agrees": agrees,
            "role": role,
            "reproduced": role == "check" and agrees is True,
            "finding": findings.get(cid),
        })
    return out
