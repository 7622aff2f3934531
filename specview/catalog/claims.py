"""Published figures as data (each method unit's, specview/methods/*, and the shared `texts/claims.toml`),
and whether a preset agrees with them.

A claim is one number (or range, or bound) a source states: the source article's own
figures and the papers and measurements in the research notes. Presets cite claims in their
provenance; `disagreement(preset, claim)` recomputes the preset's own value for the claim's
quantity under the claim's conditions, so a preset edited out of line with what it cites is
caught, and a finding (a claim the preset deliberately does not reproduce) is caught when it
stops being true.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from specview.kernel.errors import PresetError
from specview.kernel.theory import survival

if TYPE_CHECKING:
    from specview.catalog.presets import Preset

QUANTITIES = ("acceptance", "mean_length", "speedup", "slowdown", "c", "plain_tokens_per_second", "head_accuracy",
              "yield", "survival", "chain_acceptance")
ORIGINS = ("article", "research")
DEFAULT_RELATIVE_TOLERANCE = 0.025  # "≈ 2.2×" is rounded to the digit given


@dataclass(frozen=True, slots=True)
class Claim:
    """One published figure: a value (± tolerance), a [low, high] range, or a bound on one side."""

    id: str
    quantity: str
    text: str
    origin: str
    tag: str
    where: str
    value: float | None = None
    values: tuple[float, ...] = ()
    low: float | None = None
    high: float | None = None
    tolerance: float | None = None
    temperature: float | None = None
    gamma: int | None = None
    text_zh: str = ""
    context: int | None = None  # the absolute position (prompt + output) it was measured at
    position: int | None = None  # survival: P(drafts 1…position all accepted)

    def describe(self, lang: str = "en") -> str:
        """The claim in words, in `lang` where the file has it (zh), else English."""
        return self.text_zh if lang == "zh" and self.text_zh else self.text

    def agrees(self, x: float | tuple[float, ...]) -> bool:
        """Whether `x` is what the claim states, within its stated precision."""
        if isinstance(x, tuple):
            tol = self.tolerance if self.tolerance is not None else 0.005
            return len(x) == len(self.values) and all(abs(a - b) <= tol for a, b in zip(x, self.values, strict=True))
        if self.value is not None:
            tol = self.tolerance if self.tolerance is not None else DEFAULT_RELATIVE_TOLERANCE * abs(self.value)
            return abs(x - self.value) <= tol + 1e-12
        low = -float("inf") if self.low is None else self.low
        high = float("inf") if self.high is None else self.high
        return low - 1e-12 <= x <= high + 1e-12

    def stated(self) -> str:
        """The figure as the claim states it, for messages."""
        if self.values:
            return "[" + ", ".join(f"{v:g}" for v in self.values) + "]"
        if self.value is not None:
            return f"{self.value:g}"
        if self.low is not None and self.high is not None:
            return f"{self.low:g}–{self.high:g}"
        return f"≤ {self.high:g}" if self.high is not None else f"≥ {self.low:g}"


def _number(entry: dict[str, Any], key: str, where: str) -> float | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PresetError("catalogerr.claims.number", where=where, key=key)
    return float(value)


def parse_claim(entry: dict[str, Any], where: str) -> Claim:
    """One `[[claims]]` table, validated."""
    for key in ("id", "quantity", "text", "origin", "tag", "where"):
        if not isinstance(entry.get(key), str):
            raise PresetError("catalogerr.claims.string", where=where, key=key)
    if entry["quantity"] not in QUANTITIES:
        raise PresetError("catalogerr.claims.quantity", where=where, quantity=entry["quantity"], known=QUANTITIES)
    if entry["origin"] not in ORIGINS:
        raise PresetError("catalogerr.claims.origin", where=where, origin=entry["origin"], known=ORIGINS)
    values = entry.get("values", [])
    if not isinstance(values, list) or not all(isinstance(v, int | float) for v in values):
        raise PresetError("catalogerr.claims.values", where=where)
    for key in ("gamma", "context", "position"):
        value = entry.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise PresetError("catalogerr.claims.count", where=where, key=key)
    gamma = entry.get("gamma")
    claim = Claim(
        id=entry["id"],
        quantity=entry["quantity"],
        text=" ".join(entry["text"].split()),
        origin=entry["origin"],
        tag=entry["tag"],
        where=entry["where"],
        value=_number(entry, "value", where),
        values=tuple(float(v) for v in values),
        low=_number(entry, "low", where),
        high=_number(entry, "high", where),
        tolerance=_number(entry, "tolerance", where),
        temperature=_number(entry, "temperature", where),
        gamma=gamma,
        text_zh=" ".join(str(entry.get("text_zh", "")).split()),
        context=entry.get("context"),
        position=entry.get("position"),
    )
    has_range = claim.low is not None or claim.high is not None
    if (claim.value is not None) + has_range + bool(claim.values) != 1:
        raise PresetError("catalogerr.claims.one_value", where=where)
    if claim.quantity == "survival" and not claim.position:
        raise PresetError("catalogerr.claims.survival", where=where)
    return claim


@cache
def shared_claims() -> dict[str, Claim]:
    """The claims that belong to no one method (texts/claims.toml), by id (read once)."""
    path = resources.files("specview") / "texts" / "claims.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    claims: dict[str, Claim] = {}
    for i, entry in enumerate(data.get("claims", [])):
        claim = parse_claim(entry, f"texts/claims.toml claims[{i}]")
        if claim.id in claims:
            raise PresetError("catalogerr.claims.twice", claim=claim.id)
        claims[claim.id] = claim
    return claims


@cache
def load_claims() -> dict[str, Claim]:
    """Every claim by id: the shared ones, then each method unit's (the registry keeps ids unique)."""
    from specview.methods.registry import methods  # the units parse their claims here: imported when needed

    return shared_claims() | {claim.id: claim for method in methods().values() for claim in method.claims}


def preset_value(preset: Preset, claim: Claim) -> float | tuple[float, ...] | None:
    """The preset's own number for what the claim measures, under the claim's conditions
    (its temperature and γ where it states them, else the preset's); None if it has none."""
    temperature = preset.temperature if claim.temperature is None else claim.temperature
    gamma = preset.gamma if claim.gamma is None else claim.gamma
    context = claim.context or 0
    q = claim.quantity
    if q == "acceptance":
        acceptance = preset.acceptance_at(temperature, gamma, context)
        return sum(acceptance) / len(acceptance)
    if q == "chain_acceptance":  # one tree branch's, before any decay with context
        chain = preset.chain_acceptance(temperature, gamma)
        return sum(chain) / len(chain)
    if q == "mean_length":
        return preset.tau_at(temperature, gamma, context)
    if q == "yield":  # accepted ÷ drafted = (τ − 1) ÷ drafts per round
        return (preset.tau_at(temperature, gamma, context) - 1.0) / preset.mean_drafted(gamma)
    if q == "survival" and claim.position:
        return survival(preset.acceptance_at(temperature, max(gamma, claim.position), context))[claim.position - 1]
    if q == "speedup":
        return preset.speedup_at(temperature, gamma, context)
    if q == "c":
        return preset.c
    if q == "plain_tokens_per_second":
        return 1000.0 / preset.target_ms
    if q == "head_accuracy":
        return tuple(round(p, 6) for p in survival(preset.acceptance_at(temperature, len(claim.values))))
    return None  # a slowdown under load is beyond a batch-1 preset


def disagreement(preset: Preset, claim: Claim) -> str | None:
    """Why the preset does not reproduce the claim (None when it does)."""
    value = preset_value(preset, claim)
    if value is None:
        return f"{preset.id} has no value for {claim.quantity} (claim {claim.id})"
    if claim.agrees(value):
        return None
    shown = "[" + ", ".join(f"{v:.4g}" for v in value) + "]" if isinstance(value, tuple) else f"{value:.4g}"
    return f"{preset.id} gives {claim.quantity} {shown}, claim {claim.id} states {claim.stated()}"
