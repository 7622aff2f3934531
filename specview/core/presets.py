"""Presets as data: shipped TOML files plus the user's own, validated on load."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from specview.core.errors import PresetError
from specview.core.theory import MAX_GAMMA, alpha_for_tau, tau_from_positions

METHODS = ("mtp-sequential", "mtp-parallel", "eagle", "draft-model", "ngram", "medusa")
SOURCE_TAGS = ("vendor", "authors", "independent", "derived")


@dataclass(frozen=True, slots=True)
class Source:
    title: str
    url: str
    tag: str


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
    acceptance_t0: tuple[float, ...] | None
    acceptance_t1: tuple[float, ...] | None
    mean_length: float | None
    sources: tuple[Source, ...]
    run: dict[str, str] = field(default_factory=dict)
    notes: str = ""
    origin: str = ""

    def acceptance_at(self, temperature: float, gamma: int | None = None) -> list[float]:
        """Conditional per-position acceptance at this temperature, one value per draft."""
        gamma = self.gamma if gamma is None else gamma
        low = self.acceptance_t0 or self.acceptance_t1
        high = self.acceptance_t1 or self.acceptance_t0
        if low is None or high is None:
            assert self.mean_length is not None
            alpha = alpha_for_tau(self.mean_length, self.gamma)
            return [alpha] * gamma
        w = min(max(temperature, 0.0), 1.0)
        mixed = [(1 - w) * a + w * b for a, b in zip(low, high, strict=True)]
        return [mixed[min(k, len(mixed) - 1)] for k in range(gamma)]

    def declared_tau(self) -> float:
        """τ the sources declare at the preset's own γ and temperature."""
        if self.mean_length is not None:
            return self.mean_length
        return tau_from_positions(self.acceptance_at(self.temperature))


def _require(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise PresetError(f"{where}: missing key '{key}'")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise PresetError(f"{where}: key '{key}' must be {names}, got {value!r}")
    return value


def _probabilities(value: Any, key: str, where: str) -> tuple[float, ...]:
    if not isinstance(value, list) or not value:
        raise PresetError(f"{where}: key '{key}' must be a non-empty list of probabilities")
    out = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int | float) or not 0 <= item <= 1:
            raise PresetError(f"{where}: key '{key}' has {item!r}, not a probability in [0, 1]")
        out.append(float(item))
    return tuple(out)


def parse_preset(data: dict[str, Any], where: str) -> Preset:
    """Validate one parsed TOML table; `where` names the file in every error."""
    pid = _require(data, "id", str, where)
    method = _require(data, "method", str, where)
    if method not in METHODS:
        raise PresetError(f"{where}: key 'method' is {method!r}, expected one of {METHODS}")
    gamma = _require(data, "gamma", int, where)
    if not 1 <= gamma <= MAX_GAMMA:
        raise PresetError(f"{where}: key 'gamma' is {gamma}, expected 1..{MAX_GAMMA}")
    temperature = float(_require(data, "temperature", (int, float), where))
    c = float(_require(data, "c", (int, float), where))
    target_ms = float(_require(data, "target_ms", (int, float), where))
    if temperature < 0 or c < 0 or target_ms <= 0:
        raise PresetError(f"{where}: 'temperature' and 'c' must be >= 0, 'target_ms' > 0")
    acc = _require(data, "acceptance", dict, where)
    t0 = _probabilities(acc["t0"], "acceptance.t0", where) if "t0" in acc else None
    t1 = _probabilities(acc["t1"], "acceptance.t1", where) if "t1" in acc else None
    mean_length = acc.get("mean_length")
    if mean_length is not None:
        ok = isinstance(mean_length, int | float) and 1 <= mean_length <= gamma + 1
        if not ok:
            raise PresetError(f"{where}: key 'acceptance.mean_length' must be in [1, {gamma + 1}]")
        mean_length = float(mean_length)
    if t0 is None and t1 is None and mean_length is None:
        raise PresetError(f"{where}: key 'acceptance' needs t0, t1 or mean_length")
    if t0 is not None and t1 is not None and len(t0) != len(t1):
        raise PresetError(f"{where}: 'acceptance.t0' and 'acceptance.t1' differ in length")
    sources = []
    for i, src in enumerate(data.get("sources", [])):
        at = f"{where} sources[{i}]"
        tag = _require(src, "tag", str, at)
        if tag not in SOURCE_TAGS:
            raise PresetError(f"{at}: key 'tag' is {tag!r}, expected one of {SOURCE_TAGS}")
        sources.append(Source(_require(src, "title", str, at), str(src.get("url", "")), tag))
    run = data.get("run", {})
    if not isinstance(run, dict) or not all(isinstance(v, str) for v in run.values()):
        raise PresetError(f"{where}: key 'run' must be a table of strings")
    return Preset(
        id=pid,
        label=str(data.get("label", pid)),
        method=method,
        gamma=gamma,
        temperature=temperature,
        c=c,
        target_ms=target_ms,
        hardware=str(data.get("hardware", "")),
        acceptance_t0=t0,
        acceptance_t1=t1,
        mean_length=mean_length,
        sources=tuple(sources),
        run=dict(run),
        notes=str(data.get("notes", "")).strip(),
        origin=where,
    )


def load_preset_file(path: Path) -> Preset:
    """Read and validate one preset TOML file."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise PresetError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise PresetError(f"{path}: not valid TOML: {exc}") from None
    return parse_preset(data, str(path))


def user_preset_dir() -> Path:
    """Where user presets live: <platformdirs config dir>/presets."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("specview")) / "presets"


@cache
def _shipped_presets() -> tuple[Preset, ...]:
    """The presets in the package (read once: they cannot change while specview runs)."""
    shipped = resources.files("specview") / "presets"
    return tuple(
        parse_preset(tomllib.loads(entry.read_text(encoding="utf-8")), f"shipped preset {entry.name}")
        for entry in sorted(shipped.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".toml")
    )


def load_presets(user_dir: Path | None = None) -> dict[str, Preset]:
    """Shipped presets, then user presets (which override by id; read afresh, they may change)."""
    presets = {preset.id: preset for preset in _shipped_presets()}
    folder = user_preset_dir() if user_dir is None else user_dir
    if folder.is_dir():
        for path in sorted(folder.glob("*.toml")):
            preset = load_preset_file(path)
            presets[preset.id] = preset
    return presets


DEFAULT_PRESET = "qwen3.6-mtp"


def get_preset(preset_id: str, user_dir: Path | None = None) -> Preset:
    """One preset by id, or a PresetError listing the known ids."""
    presets = load_presets(user_dir)
    if preset_id not in presets:
        known = ", ".join(presets)
        raise PresetError(f"unknown preset '{preset_id}'; known presets: {known}")
    return presets[preset_id]
