"""Presets as data: shipped TOML files plus the user's own, validated on load."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from specview.core.errors import PresetError
from specview.core.text import shown
from specview.core.theory import MAX_GAMMA, alpha_for_tau, tau_from_positions

MAX_PRESET_BYTES = 1 * 2**20  # a preset file is a few hundred bytes; a bigger one is not read

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
        raise PresetError(f"{where}: key '{key}' must be {names}, got {shown(value)}")
    return value


def _finite(data: dict[str, Any], key: str, low: float, high: float, where: str) -> float:
    """A required number in [low, high]; NaN and ±inf (TOML has both) are refused."""
    value = float(_require(data, key, (int, float), where))
    if not math.isfinite(value) or not low <= value <= high:
        raise PresetError(f"{where}: key '{key}' is {shown(value)}, expected a number in [{low:g}, {high:g}]")
    return value


def _text(data: dict[str, Any], key: str, default: str, where: str) -> str:
    """An optional string key (a number or a table where text belongs is refused)."""
    value = data.get(key, default)
    if not isinstance(value, str):
        raise PresetError(f"{where}: key '{key}' must be a string, got {shown(value)}")
    return value


def _probabilities(value: Any, key: str, where: str) -> tuple[float, ...]:
    if not isinstance(value, list) or not value or len(value) > MAX_GAMMA:
        raise PresetError(f"{where}: key '{key}' must be a list of 1 to {MAX_GAMMA} probabilities")
    out = []
    for item in value:
        ok = not isinstance(item, bool) and isinstance(item, int | float) and math.isfinite(item)
        if not ok or not 0 <= item <= 1:
            raise PresetError(f"{where}: key '{key}' has {shown(item)}, not a probability in [0, 1]")
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
        raise PresetError(f"{where}: key 'gamma' is {shown(gamma)}, expected 1..{MAX_GAMMA}")
    temperature = _finite(data, "temperature", 0.0, 5.0, where)
    c = _finite(data, "c", 0.0, 100.0, where)
    target_ms = _finite(data, "target_ms", 1e-6, 1e7, where)
    acc = _require(data, "acceptance", dict, where)
    t0 = _probabilities(acc["t0"], "acceptance.t0", where) if "t0" in acc else None
    t1 = _probabilities(acc["t1"], "acceptance.t1", where) if "t1" in acc else None
    mean_length = acc.get("mean_length")
    if mean_length is not None:
        ok = (not isinstance(mean_length, bool) and isinstance(mean_length, int | float)
              and math.isfinite(mean_length) and 1 <= mean_length <= gamma + 1)
        if not ok:
            raise PresetError(f"{where}: key 'acceptance.mean_length' must be in [1, {gamma + 1}]")
        mean_length = float(mean_length)
    if t0 is None and t1 is None and mean_length is None:
        raise PresetError(f"{where}: key 'acceptance' needs t0, t1 or mean_length")
    if t0 is not None and t1 is not None and len(t0) != len(t1):
        raise PresetError(f"{where}: 'acceptance.t0' and 'acceptance.t1' differ in length")
    listed = data.get("sources", [])
    if not isinstance(listed, list):
        raise PresetError(f"{where}: key 'sources' must be a list of tables ([[sources]]), got {shown(listed)}")
    sources = []
    for i, src in enumerate(listed):
        at = f"{where} sources[{i}]"
        if not isinstance(src, dict):
            raise PresetError(f"{at}: must be a table with title, url and tag, got {shown(src)}")
        tag = _require(src, "tag", str, at)
        if tag not in SOURCE_TAGS:
            raise PresetError(f"{at}: key 'tag' is {shown(tag)}, expected one of {SOURCE_TAGS}")
        sources.append(Source(_require(src, "title", str, at), _text(src, "url", "", at), tag))
    run = data.get("run", {})
    if not isinstance(run, dict) or not all(isinstance(v, str) for v in run.values()):
        raise PresetError(f"{where}: key 'run' must be a table of strings")
    return Preset(
        id=pid,
        label=_text(data, "label", pid, where),
        method=method,
        gamma=gamma,
        temperature=temperature,
        c=c,
        target_ms=target_ms,
        hardware=_text(data, "hardware", "", where),
        acceptance_t0=t0,
        acceptance_t1=t1,
        mean_length=mean_length,
        sources=tuple(sources),
        run=dict(run),
        notes=_text(data, "notes", "", where).strip(),
        origin=where,
    )


def read_toml(path: Path, limit: int, error: type[Exception]) -> dict[str, Any]:
    """A small TOML file from outside: size bounded, every failure an `error` naming the file."""
    try:
        with path.open("rb") as file:
            raw = file.read(limit + 1)
    except OSError as exc:
        raise error(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if len(raw) > limit:
        raise error(f"{path}: larger than {limit // 1024} KiB, not read")
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise error(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{path}: not valid TOML ({exc})") from None
    except (ValueError, RecursionError) as exc:  # a 5000-digit number, arrays nested too deeply
        raise error(f"{path}: not TOML specview can read ({type(exc).__name__})") from None


def load_preset_file(path: Path) -> Preset:
    """Read and validate one preset TOML file."""
    return parse_preset(read_toml(path, MAX_PRESET_BYTES, PresetError), str(path))


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


def load_presets(user_dir: Path | None = None, problems: list[str] | None = None) -> dict[str, Preset]:
    """Shipped presets, then user presets (which override by id; read afresh, they may change).

    A user file that cannot be used is skipped, not fatal: its reason (file, key, why) is
    appended to `problems` for the caller to report, and every other preset still works.
    """
    presets = {preset.id: preset for preset in _shipped_presets()}
    folder = user_preset_dir() if user_dir is None else user_dir
    if folder.is_dir():
        for path in sorted(folder.glob("*.toml"))[:1000]:
            try:
                preset = load_preset_file(path)
            except PresetError as exc:
                if problems is not None:
                    problems.append(f"{exc} (preset file skipped)")
                continue
            presets[preset.id] = preset
    return presets


DEFAULT_PRESET = "qwen3.6-mtp"


def get_preset(preset_id: str, user_dir: Path | None = None) -> Preset:
    """One preset by id, or a PresetError listing the known ids (and any file that was skipped)."""
    problems: list[str] = []
    presets = load_presets(user_dir, problems)
    if preset_id not in presets:
        known = ", ".join(presets)
        skipped = f"; {len(problems)} user preset file(s) skipped: {problems[0]}" if problems else ""
        raise PresetError(f"unknown preset {shown(preset_id)}; known presets: {known}{skipped}")
    return presets[preset_id]
