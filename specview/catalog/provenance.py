"""Where each preset number comes from, and what that makes of the numbers built on it.

Every number a preset feeds the simulator is tagged: **cited** (a source states it),
**derived** (computed from cited numbers; `how` says how) or **assumed** (nobody measured
it). A simulated value is only as good as its weakest input, so the simulator's tokens/s,
c and speedup carry the weakest tag of what they rest on; the speedup always rests on the
simulator's own assumption that verifying γ + 1 tokens costs one forward.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from specview.boundary.bounds import Invalid, mapping, sequence, string
from specview.boundary.text import shown
from specview.kernel.errors import PresetError

KINDS = ("cited", "derived", "assumed")
FIELDS = ("gamma", "temperature", "acceptance", "c", "target_ms")  # the numbers a preset feeds the simulator
# the shape beyond one chain (catalog/preset_shapes.py), tagged where a preset has one: `depth`
# (block, depth weights, tree), `context` (decay with context position)
SHAPE_FIELDS = ("depth", "context")
VERIFY_ASSUMPTION = "verify ≈ 1 forward"  # the simulator's cost model (Theorem 3.8's)
_STRENGTH = {"assumed": 0, "derived": 1, "cited": 2}


@dataclass(frozen=True, slots=True)
class FieldSource:
    """Where one preset field comes from: its kind, the source and claim ids behind it, and how."""

    kind: str
    sources: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()
    how: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "sources": list(self.sources), "claims": list(self.claims), "how": self.how}


@dataclass(frozen=True, slots=True)
class Finding:
    """A cited claim the preset deliberately does not reproduce, and why (e.g. α is not i.i.d.)."""

    claim: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"claim": self.claim, "text": self.text}


UNTAGGED = FieldSource("assumed", how="not tagged by the preset")


def weakest(*kinds: str) -> str:
    """The least trustworthy of some kinds (assumed < derived < cited)."""
    return min(kinds, key=lambda kind: _STRENGTH[kind])


def output_kinds(fields: dict[str, FieldSource]) -> dict[str, str]:
    """The kind of each simulated gauge, from the fields it is computed from."""
    kind = {name: fields.get(name, UNTAGGED).kind for name in FIELDS}
    shape = [fields[name].kind for name in SHAPE_FIELDS if name in fields]  # only where the preset has one
    acceptance = weakest(kind["acceptance"], *([fields["context"].kind] if "context" in fields else []))
    return {
        "acceptance": acceptance,
        "tau": weakest(acceptance, kind["gamma"], *shape),
        "tokens_per_second": weakest(kind["target_ms"], kind["c"], acceptance, kind["gamma"], *shape),
        "draft_cost": kind["c"],
        "speedup": "assumed",  # τ / (γc + 1): verify ≈ 1 forward is the simulator's assumption
    }


def _strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PresetError("catalogerr.provenance.strings", where=where, key=key)
    return tuple(value)


def parse_provenance(
    data: Any, source_ids: Collection[str], claim_ids: Collection[str] | None, where: str
) -> dict[str, FieldSource]:
    """The `[provenance]` table: one `{kind, sources, claims, how}` table per field.

    Unknown fields, kinds, source ids or claim ids (when `claim_ids` is given) are refused;
    a derived or cited field must name where it comes from.
    """
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PresetError("catalogerr.provenance.table", where=where)
    out: dict[str, FieldSource] = {}
    for name, entry in data.items():
        at = f"{where} provenance.{name}"
        if name not in FIELDS + SHAPE_FIELDS:
            raise PresetError("catalogerr.provenance.unknown_field", where=where, name=shown(name),
                              known=FIELDS + SHAPE_FIELDS)
        if not isinstance(entry, dict):
            raise PresetError("catalogerr.provenance.entry", where=at)
        kind = entry.get("kind")
        if kind not in KINDS:
            raise PresetError("catalogerr.provenance.kind", where=at, kind=shown(kind), known=KINDS)
        sources = _strings(entry.get("sources", []), "sources", at)
        claims = _strings(entry.get("claims", []), "claims", at)
        how = entry.get("how", "")
        if not isinstance(how, str):
            raise PresetError("catalogerr.provenance.how", where=at)
        for sid in sources:
            if sid not in source_ids:
                raise PresetError("catalogerr.provenance.source", where=at, source=shown(sid),
                                  known=shown(sorted(source_ids)))
        for cid in claims:
            if claim_ids is not None and cid not in claim_ids:
                raise PresetError("catalogerr.provenance.claim", where=at, claim=shown(cid))
        if kind != "assumed" and not (sources or claims):
            raise PresetError("catalogerr.provenance.needs_source", where=at, kind=kind)
        if kind == "derived" and not how.strip():
            raise PresetError("catalogerr.provenance.needs_how", where=at)
        out[name] = FieldSource(kind, sources, claims, " ".join(how.split()))
    return out


def parse_findings(data: Any, claim_ids: Collection[str] | None, where: str) -> tuple[Finding, ...]:
    """`[[findings]]`: claims the preset does not reproduce, each with the reason."""
    if data is None:
        return ()
    if not isinstance(data, list):
        raise PresetError("catalogerr.provenance.findings", where=where)
    out = []
    for i, entry in enumerate(data):
        at = f"{where} findings[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("claim"), str) or not isinstance(
            entry.get("text"), str
        ):
            raise PresetError("catalogerr.provenance.finding", where=at)
        if claim_ids is not None and entry["claim"] not in claim_ids:
            raise PresetError("catalogerr.provenance.claim", where=at, claim=shown(entry["claim"]))
        out.append(Finding(entry["claim"], " ".join(entry["text"].split())))
    return tuple(out)


OUTPUTS = ("acceptance", "tau", "tokens_per_second", "draft_cost", "speedup")
_MAX_LISTED = 32  # sources, claims or findings one recorded provenance may list


def checked_provenance(value: Any, field: str = "backend.provenance") -> dict[str, Any]:
    """A provenance object read from outside (a recording header), kept only in its known shape.

    `outputs` (what the UI tags) must map known gauges to known kinds; fields and findings are
    checked for type and count. Raises bounds.Invalid naming the field.
    """
    data = mapping(value or {}, field)
    out: dict[str, Any] = {}
    outputs = mapping(data.get("outputs") or {}, f"{field}.outputs")
    for key, kind in outputs.items():
        if key not in OUTPUTS or kind not in KINDS:
            raise Invalid(f"{field}.outputs has {shown(key)}: {shown(kind)}, expected a gauge of {OUTPUTS} "
                          f"and one of {KINDS}")
    if outputs:
        out["outputs"] = dict(outputs)
    fields = mapping(data.get("fields") or {}, f"{field}.fields")
    checked: dict[str, Any] = {}
    for name, entry in fields.items():
        at = f"{field}.fields.{shown(name)}"
        if name not in FIELDS + SHAPE_FIELDS:
            raise Invalid(f"{at}: unknown field")
        entry = mapping(entry, at)
        kind = entry.get("kind")
        if kind not in KINDS:
            raise Invalid(f"{at}.kind is {shown(kind)}, expected one of {KINDS}")
        checked[name] = {
            "kind": kind,
            "sources": [string(v, f"{at}.sources") for v in sequence(entry.get("sources", []), f"{at}.sources",
                                                                     _MAX_LISTED)],
            "claims": [string(v, f"{at}.claims") for v in sequence(entry.get("claims", []), f"{at}.claims",
                                                                   _MAX_LISTED)],
            "how": string(entry.get("how", ""), f"{at}.how"),
        }
    if checked:
        out["fields"] = checked
    if "assumption" in data:
        out["assumption"] = string(data["assumption"], f"{field}.assumption")
    findings = sequence(data.get("findings", []), f"{field}.findings", _MAX_LISTED)
    if findings or "findings" in data:
        out["findings"] = [
            {"claim": string(mapping(f, f"{field}.findings").get("claim"), f"{field}.findings.claim"),
             "text": string(f.get("text"), f"{field}.findings.text")}
            for f in findings
        ]
    return out
