"""Presets as data: shipped TOML files plus the user's own, validated on load.

Acceptance is given per position at one or more temperatures (`t0`, `t1`, `[[acceptance.rows]]`,
interpolated linearly in T between rows), or as a mean accepted length (`mean_length`, a
constant α through Leviathan's Eq. 1), or as a mixture (`[acceptance.mixture]`, prompt lookup:
a round either finds a match and drafts γ tokens accepted with the `matched` per-position rate,
or drafts nothing; the match rate follows from `mean_length`). Every number carries its
provenance (catalog/provenance.py); the figures presets cite are their methods' claims
(specview/methods/, catalog/claims.py). A preset's method is a unit found by methods/registry.py, and the
preset must have the shape that method's acceptance model allows (methods/acceptance.py).
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from itertools import pairwise
from pathlib import Path
from typing import Any

from specview.boundary.text import shown
from specview.catalog.claims import load_claims
from specview.catalog.preset_shapes import Shape, parse_shape
from specview.catalog.preset_words import parse_words
from specview.catalog.provenance import (
    UNTAGGED,
    VERIFY_ASSUMPTION,
    FieldSource,
    Finding,
    output_kinds,
    parse_findings,
    parse_provenance,
)
from specview.catalog.small_files import read_toml
from specview.kernel.errors import PresetError
from specview.kernel.theory import MAX_GAMMA, alpha_for_tau, expected_tau, speedup_of_tau, tau_from_positions
from specview.methods.acceptance import check_model
from specview.methods.registry import methods
from specview.plugins.problems import report
from specview.texts.catalog import Phrase

MAX_PRESET_BYTES = 1 * 2**20  # a preset file is a few hundred bytes; a bigger one is not read

MAX_ACCEPTANCE_ROWS = 16  # temperatures a preset may give acceptance for
SOURCE_TAGS = ("vendor", "authors", "independent", "derived")


@dataclass(frozen=True, slots=True)
class Source:
    title: str
    url: str
    tag: str
    id: str = ""


@dataclass(frozen=True, slots=True)
class Preset:
    """One calibrated simulator setting with its citations."""

    id: str
    label: str
    method: str
    gamma: int
    temperature: float
    c: float
    target_ms: float
    hardware: str
    acceptance_rows: tuple[tuple[float, tuple[float, ...]], ...]  # (temperature, per position), T ascending
    mean_length: float | None
    sources: tuple[Source, ...]
    run: dict[str, str] = field(default_factory=dict)
    # engine -> the first version without the command's method (`[run_removed]`: vLLM 0.33 dropped medusa)
    run_removed: dict[str, str] = field(default_factory=dict)
    notes: str = ""
    origin: str = ""
    matched: float | None = None  # mixture: per-position acceptance in a round that found a match
    provenance: dict[str, FieldSource] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()
    position_note: str = ""  # why per-position acceptance rises with distance, when it does
    shape: Shape = field(default_factory=Shape)  # block, variable depth, tree, decay with context
    words: dict[str, dict[str, str]] = field(default_factory=dict)  # language → label, hardware (preset_words.py)

    def acceptance_at(self, temperature: float, gamma: int | None = None, context: float = 0.0) -> list[float]:
        """Conditional per-position acceptance at this temperature, one value per draft: a tree's
        per depth, at absolute position `context` where acceptance decays with context."""
        chain = self.chain_acceptance(temperature, gamma)
        factor = self.shape.context_factor(context)
        return [self.shape.tree(a) * factor for a in chain]

    def chain_acceptance(self, temperature: float, gamma: int | None = None) -> list[float]:
        """One chain's (one tree branch's) per-position acceptance, before any decay with context."""
        gamma = self.gamma if gamma is None else gamma
        if self.matched is not None:
            return [self.matched] * gamma
        rows = self.acceptance_rows
        if not rows:
            assert self.mean_length is not None
            return [alpha_for_tau(self.mean_length, self.gamma)] * gamma
        mixed = list(rows[0][1] if temperature <= rows[0][0] else rows[-1][1])
        for (t_lo, lo), (t_hi, hi) in pairwise(rows):
            if t_lo <= temperature <= t_hi:
                w = (temperature - t_lo) / (t_hi - t_lo)
                mixed = [(1 - w) * a + w * b for a, b in zip(lo, hi, strict=True)]
                break
        return [mixed[min(k, len(mixed) - 1)] for k in range(gamma)]

    @property
    def match_rate(self) -> float | None:
        """Mixture presets: the share of rounds that find a match (derived from mean_length)."""
        if self.matched is None or self.mean_length is None:
            return None
        return (self.mean_length - 1.0) / (expected_tau(self.matched, self.gamma) - 1.0)

    def tau_at(self, temperature: float, gamma: int | None = None, context: float = 0.0) -> float:
        """Expected tokens per target forward at this temperature and γ (and context position)."""
        gamma = self.gamma if gamma is None else gamma
        rate = self.match_rate
        if rate is not None and self.matched is not None:
            return rate * expected_tau(self.matched, gamma) + (1.0 - rate)
        acceptance = self.acceptance_at(temperature, gamma, context)
        depth = self.shape.depth_at(gamma)
        if depth is not None:
            return sum(w * tau_from_positions(acceptance[:k]) for k, w in enumerate(depth))
        return tau_from_positions(acceptance)

    def drafted_shares(self, gamma: int | None = None) -> tuple[float, ...]:
        """P(a round drafts k), k = 0…γ: all γ, or a variable depth's shares, or a mixture's rounds
        without a match (0 drafts) beside those with one (γ)."""
        gamma = self.gamma if gamma is None else gamma
        depth = self.shape.depth_at(gamma)
        if depth is not None:
            return depth
        rate = 1.0 if self.match_rate is None else self.match_rate
        return (1.0 - rate, *([0.0] * (gamma - 1)), rate) if gamma else (1.0,)

    def mean_drafted(self, gamma: int | None = None) -> float:
        """Drafts per round on average: γ, or less where depth varies (a mixture, depth weights)."""
        return sum(k * w for k, w in enumerate(self.drafted_shares(gamma)))

    def speedup_at(self, temperature: float, gamma: int | None = None, context: float = 0.0,
                   verify_ratio: float = 1.0) -> float:
        """The simulator's speedup: τ / (γc + v), verifying taken to cost one forward (v = 1, Thm 3.8)
        unless `verify_ratio` says otherwise; γ the drafts a round makes on average (`mean_drafted`):
        rounds that draft less (a mixture's unmatched rounds, variable depth) cost less. Through
        kernel/theory.py's `speedup_of_tau`, the one formula."""
        return speedup_of_tau(self.tau_at(temperature, gamma, context), self.mean_drafted(gamma), self.c,
                              verify_ratio)

    def declared_tau(self) -> float:
        """τ the sources declare at the preset's own γ and temperature."""
        if self.mean_length is not None:
            return self.mean_length
        return self.tau_at(self.temperature)

    def field_source(self, name: str) -> FieldSource:
        """Where one field comes from ("assumed" when the preset does not say)."""
        return self.provenance.get(name, UNTAGGED)

    def provenance_json(self) -> dict[str, Any]:
        """The `provenance` object of `bench --json` and recordings: fields, outputs, findings."""
        return {
            "fields": {name: self.field_source(name).to_dict()
                   for name in ("gamma", "temperature", "acceptance", "c", "target_ms", *self.shape.features)},
            "outputs": output_kinds(self.provenance),
            "assumption": VERIFY_ASSUMPTION,
            "findings": [f.to_dict() for f in self.findings],
        }


def _require(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise PresetError("catalogerr.preset.missing_key", where=where, key=key)
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise PresetError("catalogerr.preset.wrong_type", where=where, key=key, kind=names, value=shown(value))
    return value


def _finite(data: dict[str, Any], key: str, low: float, high: float, where: str) -> float:
    """A required number in [low, high]; NaN and ±inf (TOML has both) are refused."""
    value = float(_require(data, key, (int, float), where))
    if not math.isfinite(value) or not low <= value <= high:
        raise PresetError("catalogerr.preset.out_of_range", where=where, key=key, value=shown(value), low=low,
                          high=high)
    return value


def _text(data: dict[str, Any], key: str, default: str, where: str) -> str:
    """An optional string key (a number or a table where text belongs is refused)."""
    value = data.get(key, default)
    if not isinstance(value, str):
        raise PresetError("catalogerr.preset.not_string", where=where, key=key, value=shown(value))
    return value


def _probabilities(value: Any, key: str, where: str) -> tuple[float, ...]:
    if not isinstance(value, list) or not value or len(value) > MAX_GAMMA:
        raise PresetError("catalogerr.preset.probabilities", where=where, key=key, most=MAX_GAMMA)
    out = []
    for item in value:
        ok = not isinstance(item, bool) and isinstance(item, int | float) and math.isfinite(item)
        if not ok or not 0 <= item <= 1:
            raise PresetError("catalogerr.preset.not_probability", where=where, key=key, value=shown(item))
        out.append(float(item))
    return tuple(out)


def parse_preset(data: dict[str, Any], where: str) -> Preset:
    """Validate one parsed TOML table; `where` names the file in every error."""
    pid = _require(data, "id", str, where)
    method = _require(data, "method", str, where)
    known = methods()  # the method units (specview/methods/), plugins' included
    if method not in known:
        raise PresetError("catalogerr.preset.unknown_method", where=where, method=method, known=", ".join(known))
    gamma = _require(data, "gamma", int, where)
    if not 1 <= gamma <= MAX_GAMMA:
        raise PresetError("catalogerr.preset.gamma", where=where, gamma=shown(gamma), most=MAX_GAMMA)
    temperature = _finite(data, "temperature", 0.0, 5.0, where)
    c = _finite(data, "c", 0.0, 100.0, where)
    target_ms = _finite(data, "target_ms", 1e-6, 1e7, where)
    acc = _require(data, "acceptance", dict, where)
    rows = _acceptance_rows(acc, where)
    mean_length = acc.get("mean_length")
    if mean_length is not None:
        ok = (not isinstance(mean_length, bool) and isinstance(mean_length, int | float)
              and math.isfinite(mean_length) and 1 <= mean_length <= gamma + 1)
        if not ok:
            raise PresetError("catalogerr.preset.mean_length", where=where, most=gamma + 1)
        mean_length = float(mean_length)
    matched = _mixture(acc, gamma, mean_length, where)
    shape = parse_shape(data, acc, gamma, where)
    if not rows and mean_length is None:
        raise PresetError("catalogerr.preset.acceptance_needs", where=where)
    check_model(method, known[method].acceptance, shape, matched is not None, where)
    listed = data.get("sources", [])
    if not isinstance(listed, list):
        raise PresetError("catalogerr.preset.sources", where=where, value=shown(listed))
    sources = []
    for i, src in enumerate(listed):
        at = f"{where} sources[{i}]"
        if not isinstance(src, dict):
            raise PresetError("catalogerr.preset.source_table", where=at, value=shown(src))
        tag = _require(src, "tag", str, at)
        if tag not in SOURCE_TAGS:
            raise PresetError("catalogerr.preset.source_tag", where=at, tag=shown(tag), known=SOURCE_TAGS)
        title = _require(src, "title", str, at)
        sources.append(Source(title, _text(src, "url", "", at), tag, _text(src, "id", "", at)))
    claim_ids = set(load_claims())
    provenance = parse_provenance(data.get("provenance"), {s.id for s in sources if s.id}, claim_ids, where)
    for feature in shape.features:  # what the simulator does with it is as good as its source
        provenance.setdefault(feature, UNTAGGED)
    findings = parse_findings(data.get("findings"), claim_ids, where)
    run = data.get("run", {})
    if not isinstance(run, dict) or not all(isinstance(v, str) for v in run.values()):
        raise PresetError("catalogerr.preset.run", where=where)
    removed = data.get("run_removed", {})
    if not isinstance(removed, dict) or not all(isinstance(v, str) and k in run for k, v in removed.items()):
        raise PresetError("catalogerr.preset.run_removed", where=where)
    return Preset(
        id=pid,
        label=_text(data, "label", pid, where),
        method=method,
        gamma=gamma,
        temperature=temperature,
        c=c,
        target_ms=target_ms,
        hardware=_text(data, "hardware", "", where),
        acceptance_rows=rows,
        mean_length=mean_length,
        sources=tuple(sources),
        run=dict(run),
        run_removed=dict(removed),
        notes=_text(data, "notes", "", where).strip(),
        origin=where,
        matched=matched,
        provenance=provenance,
        findings=findings,
        position_note=" ".join(_text(data, "position_note", "", where).split()),
        shape=shape,
        words=parse_words(data, where),
    )


def _acceptance_rows(acc: dict[str, Any], where: str) -> tuple[tuple[float, tuple[float, ...]], ...]:
    """t0 (T = 0), t1 (T = 1) and `[[acceptance.rows]]` (any T) as (T, values), T ascending."""
    rows: dict[float, tuple[float, ...]] = {}
    if "t0" in acc:
        rows[0.0] = _probabilities(acc["t0"], "acceptance.t0", where)
    if "t1" in acc:
        rows[1.0] = _probabilities(acc["t1"], "acceptance.t1", where)
    extra = acc.get("rows", [])
    if not isinstance(extra, list) or len(extra) > MAX_ACCEPTANCE_ROWS:
        raise PresetError("catalogerr.preset.rows", where=where, most=MAX_ACCEPTANCE_ROWS)
    for i, row in enumerate(extra):
        at = f"acceptance.rows[{i}]"
        if not isinstance(row, dict):
            raise PresetError("catalogerr.preset.row_table", where=where, key=at)
        t = row.get("temperature")
        if isinstance(t, bool) or not isinstance(t, int | float) or not 0 <= t <= 5:
            raise PresetError("catalogerr.preset.row_temperature", where=where, key=at)
        if float(t) in rows:
            raise PresetError("catalogerr.preset.row_twice", where=where, t=t)
        rows[float(t)] = _probabilities(row.get("values"), f"{at}.values", where)
    if len({len(values) for values in rows.values()}) > 1:
        raise PresetError("catalogerr.preset.row_lengths", where=where)
    return tuple(sorted(rows.items()))


def _mixture(acc: dict[str, Any], gamma: int, mean_length: float | None, where: str) -> float | None:
    """`[acceptance.mixture] matched = A`: the per-position acceptance of a matched round."""
    mixture = acc.get("mixture")
    if mixture is None:
        return None
    matched = mixture.get("matched") if isinstance(mixture, dict) else None
    if isinstance(matched, bool) or not isinstance(matched, int | float) or not 0 < matched <= 1:
        raise PresetError("catalogerr.preset.matched", where=where)
    if mean_length is None:
        raise PresetError("catalogerr.preset.mixture_needs", where=where)
    if mean_length > expected_tau(float(matched), gamma):
        raise PresetError("catalogerr.preset.mixture_above", where=where, mean_length=mean_length, matched=matched,
                          gamma=gamma)
    return float(matched)


def load_preset_file(path: Path) -> Preset:
    """Read and validate one preset TOML file."""
    return parse_preset(read_toml(path, MAX_PRESET_BYTES, PresetError), str(path))


def user_preset_dir() -> Path:
    """Where user presets live: <platformdirs config dir>/presets."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("specview")) / "presets"


@cache
def _shipped_presets() -> tuple[tuple[Preset, ...], tuple[Phrase, ...]]:
    """The presets in the package (read once: they cannot change while specview runs), and why any is
    left out: one that names a method no installed unit provides is skipped, as a user's file would be."""
    shipped = resources.files("specview") / "presets"
    presets, problems = [], []
    for entry in sorted(shipped.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            try:
                presets.append(parse_preset(tomllib.loads(entry.read_text(encoding="utf-8")),
                                            f"shipped preset {entry.name}"))
            except PresetError as exc:
                problems.append(Phrase("catalogerr.preset.skipped", error=exc))
    return tuple(presets), tuple(problems)


def load_presets(user_dir: Path | None = None,
                 problems: list[Phrase] | list[Phrase | str] | None = None) -> dict[str, Preset]:
    """Shipped presets, then user presets (which override by id; read afresh, they may change).

    A file that cannot be used is skipped, not fatal: its reason (file, key, why) is appended to
    `problems` (a Phrase: the caller shows it in the user's language), and every other preset still works.
    """
    shipped, skipped = _shipped_presets()
    presets = {preset.id: preset for preset in shipped}
    if problems is not None:
        problems.extend(skipped)
    folder = user_preset_dir() if user_dir is None else user_dir
    if folder.is_dir():
        for path in sorted(folder.glob("*.toml"))[:1000]:
            try:
                preset = load_preset_file(path)
            except PresetError as exc:
                line = Phrase("catalogerr.preset.skipped", error=exc)
                if exc.phrase.key == "catalogerr.preset.unknown_method":
                    report(line)  # a method no unit provides: said by the plugin surface, once
                if problems is not None:
                    problems.append(line)
                continue
            presets[preset.id] = preset
    return presets


DEFAULT_PRESET = "qwen3.6-mtp"  # the simulator's preset when none is named (CLI, live view, Learn)


def get_preset(preset_id: str, user_dir: Path | None = None) -> Preset:
    """One preset by id, or a PresetError listing the known ids (and any file that was skipped)."""
    problems: list[Phrase] = []
    presets = load_presets(user_dir, problems)
    if preset_id not in presets:
        known = ", ".join(presets)
        if problems:
            raise PresetError("catalogerr.preset.unknown_skipped", preset=shown(preset_id), known=known,
                              count=len(problems), first=problems[0])
        raise PresetError("catalogerr.preset.unknown", preset=shown(preset_id), known=known)
    return presets[preset_id]
