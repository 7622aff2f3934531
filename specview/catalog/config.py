"""User configuration: `<config dir>/specview/config.toml`, then SPECVIEW_* environment variables.

A bad value never stops specview: it is reported (file, key, reason) and the default is used;
that includes a `preset` that names no preset. The API key may live here (`api_key`); it is
registered as a secret on load, so it is masked wherever it might be echoed, and never shown,
logged or recorded.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from specview.boundary.secrets import add_secret
from specview.boundary.text import is_safe, shown
from specview.kernel.errors import ConfigError
from specview.kernel.langs import LANGS
from specview.texts.catalog import Phrase

TIMEOUT_KEYS = ("connect_timeout", "request_timeout", "read_timeout", "stream_timeout")
MAX_TIMEOUT_S = 86_400.0
MAX_CONFIG_BYTES = 1 * 2**20
MAX_KEYS_CHARS = 100  # of one keymap entry (a few key names)
# `[watch.alerts]`: the fleet watch's alert thresholds (features/watch/model/alert_rules.py says
# what each means), each with its range; `specview watch` has a flag of the same name for each
WATCH_ALERTS: dict[str, tuple[float, float]] = {
    "window_s": (1.0, 86_400.0), "min_accept_length": (1.0, 100.0), "alpha_drop": (0.0, 1.0),
    "min_drafts": (1, 1_000_000_000), "stall_polls": (1, 1000), "baseline_tokens_per_s": (0.001, 1e9),
    "outlier_p": (1e-12, 0.5), "outlier_gap": (0.0, 1.0),
}
WHOLE_ALERT_KEYS = ("min_drafts", "stall_polls")
# a chat template's name (llama.cpp's built-ins: `chatml`, `gemma`, `llama2-sys-bos`, `seed_oss`) or
# `none`; whether the name exists is known only once llama.cpp is loaded (backends/local/prompt_format.py)
TEMPLATE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
ENV_KEYS = ("theme", "lang", "preset", "speed", "fps", "export_dir")  # SPECVIEW_<KEY> overrides the file's key
DEFAULT_SERVE_SESSIONS = 2  # browser tabs `specview serve` serves at once
MAX_SERVE_SESSIONS = 64  # each is a specview process of its own (~100 MB): far more is a mistake


class SettingOrigin(StrEnum):
    """Where a setting's value came from, weakest first: each later one overrides the earlier."""

    DEFAULT = "default"
    FILE = "file"  # the config file
    ENV = "env"  # a SPECVIEW_* variable
    OPTION = "option"  # the command line (cli/ says, the loader never sees it)


@dataclass(frozen=True, slots=True)
class SettingSource:
    """One setting's origin and where exactly: the file's path, the variable's or the option's name."""

    origin: SettingOrigin = SettingOrigin.DEFAULT
    where: str = ""


DEFAULT_SOURCE = SettingSource()


@dataclass(frozen=True, slots=True)
class Config:
    """Settings with their defaults; `problems` lists what was ignored and why (each a Phrase, said in
    the UI's language where it is shown)."""

    theme: str | None = None
    lang: str | None = None
    preset: str | None = None
    speed: float | None = None
    fps: float | None = None  # redraws per second of the live and compare views
    api_key_env: str | None = None
    api_key: str | None = field(default=None, repr=False)
    # seconds a server may take (backends/remote/timeouts.py says what each bounds and its default)
    connect_timeout: float | None = None
    request_timeout: float | None = None
    read_timeout: float | None = None
    stream_timeout: float | None = None
    export_dir: str | None = None  # where `e` writes a run's recording and report (default: the current folder)
    keymap: dict[str, str] = field(default_factory=dict)  # binding id -> keys (the UI checks the ids)
    serve_max_sessions: int | None = None  # browser tabs `specview serve` serves at once
    watch_alerts: dict[str, float] = field(default_factory=dict)  # `[watch.alerts]`: key -> threshold
    chat_template: str | None = None  # a local run's chat template: a llama.cpp built-in name, or "none"
    repack: bool | None = None  # llama.cpp's repacked weights (None: as the host needs; off on AMX hosts)
    problems: tuple[Phrase, ...] = ()
    # where each value that is set came from, by key (`watch.alerts.<key>` for a threshold); a key
    # left out has its default
    sources: dict[str, SettingSource] = field(default_factory=dict, repr=False)

    def source(self, key: str) -> SettingSource:
        """Where the value of `key` came from (DEFAULT_SOURCE when it is not set)."""
        return self.sources.get(key, DEFAULT_SOURCE)


def config_path() -> Path:
    """SPECVIEW_CONFIG if set, else the platform's config dir."""
    override = os.environ.get("SPECVIEW_CONFIG")
    if override:
        return Path(override)
    from platformdirs import user_config_dir

    return Path(user_config_dir("specview")) / "config.toml"


def _check(key: str, value: Any, where: str, problems: list[Phrase]) -> Any:
    ok: bool
    if key == "keymap":
        return _keymap(value, where, problems)
    if key == "lang":
        ok = value in LANGS
        reason = Phrase("catalogerr.config.lang", known=", ".join(LANGS))
    elif key == "speed":
        ok = (isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
              and 0 <= value <= 1000)
        reason = Phrase("catalogerr.config.speed")
    elif key in TIMEOUT_KEYS:
        ok = (isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
              and 0.1 <= value <= MAX_TIMEOUT_S)
        reason = Phrase("catalogerr.config.timeout", most=MAX_TIMEOUT_S)
    elif key == "fps":
        ok = isinstance(value, int | float) and not isinstance(value, bool) and 1 <= value <= 60
        reason = Phrase("catalogerr.config.fps")
    elif key == "chat_template":
        ok = isinstance(value, str) and TEMPLATE_NAME.fullmatch(value) is not None
        reason = Phrase("catalogerr.config.chat_template")
    elif key == "repack":
        ok = isinstance(value, bool)
        reason = Phrase("catalogerr.config.repack")
    elif key == "serve_max_sessions":
        ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_SERVE_SESSIONS
        reason = Phrase("catalogerr.config.sessions", most=MAX_SERVE_SESSIONS)
    else:
        ok = isinstance(value, str) and bool(value.strip()) and len(value) <= 1000
        reason = Phrase("catalogerr.config.string")
    if ok and key == "preset":
        from specview.catalog.presets import load_presets

        ok = value in load_presets()
        reason = Phrase("catalogerr.config.preset")
    if not ok:
        got = Phrase("catalogerr.config.hidden") if key == "api_key" else shown(value)
        problems.append(Phrase("catalogerr.config.bad_value", where=where, key=key, reason=reason, got=got))
        return None
    return float(value) if key in ("speed", "fps", *TIMEOUT_KEYS) else value


def _keymap(value: Any, where: str, problems: list[Phrase]) -> dict[str, str] | None:
    """`[keymap]`: a table of binding id = "keys" (comma-separated, Textual's key names)."""
    if not isinstance(value, dict):
        problems.append(Phrase("catalogerr.config.keymap_table", where=where))
        return None
    good = {}
    for bid, keys in value.items():
        if isinstance(keys, str) and keys.strip() and len(keys) <= MAX_KEYS_CHARS and is_safe(keys):
            good[str(bid)] = keys.replace(" ", "")
        else:
            problems.append(Phrase("catalogerr.config.keymap_keys", where=where, binding=shown(bid), got=shown(keys)))
    return good


def _watch(value: Any, where: str, problems: list[Phrase]) -> dict[str, float]:
    """`[watch]` holds one table, `[watch.alerts]`: threshold = number, each in its range."""
    if not isinstance(value, dict):
        problems.append(Phrase("catalogerr.config.watch_table", where=where))
        return {}
    for key in value:
        if key != "alerts":
            problems.append(Phrase("catalogerr.config.watch_key", where=where, key=shown(key)))
    alerts = value.get("alerts", {})
    if not isinstance(alerts, dict):
        problems.append(Phrase("catalogerr.config.alerts_table", where=where))
        return {}
    good: dict[str, float] = {}
    for key, number in alerts.items():
        limits = WATCH_ALERTS.get(key)
        if limits is None:
            problems.append(Phrase("catalogerr.config.alerts_key", where=where, key=shown(key),
                                   known=", ".join(WATCH_ALERTS)))
            continue
        low, high = limits
        whole = key in WHOLE_ALERT_KEYS
        ok = (isinstance(number, int) if whole else isinstance(number, int | float)) and not isinstance(number, bool)
        if ok and not (math.isfinite(number) and low <= number <= high):
            ok = False
        if not ok:
            problems.append(Phrase("catalogerr.config.alert_whole" if whole else "catalogerr.config.alert_number",
                                   where=where, key=key, low=low, high=high, got=shown(number)))
            continue
        good[key] = float(number)
    return good


def load_config(path: Path | None = None) -> Config:
    """Read the config file (if any) and SPECVIEW_THEME / _LANG / _PRESET / _SPEED / _FPS / _EXPORT_DIR overrides."""
    path = config_path() if path is None else path
    problems: list[Phrase] = []
    data: dict[str, Any] = {}
    if path.is_file():
        from specview.catalog.small_files import read_toml

        try:
            data = read_toml(path, MAX_CONFIG_BYTES, ConfigError)
        except ConfigError as exc:
            problems.append(Phrase("catalogerr.config.unreadable", error=exc))
    known = {f for f in Config.__dataclass_fields__ if f not in ("problems", "watch_alerts", "sources")} | {"watch"}
    values: dict[str, Any] = {}
    sources: dict[str, SettingSource] = {}
    from_file = SettingSource(SettingOrigin.FILE, str(path))
    for key, value in data.items():
        if key == "watch":
            values["watch_alerts"] = _watch(value, str(path), problems) or None
            sources.update((f"watch.alerts.{name}", from_file) for name in values["watch_alerts"] or ())
            continue
        if key not in known:
            problems.append(Phrase("catalogerr.config.unknown_key", where=path, key=shown(key),
                                   known=", ".join(sorted(known))))
            continue
        values[key] = _check(key, value, str(path), problems)
        sources[key] = from_file
    for key in ENV_KEYS:
        name = f"SPECVIEW_{key.upper()}"
        env = os.environ.get(name)
        if env:
            raw: Any = env
            if key in ("speed", "fps"):
                try:
                    raw = float(env)
                except ValueError:
                    raw = env
            values[key] = _check(key, raw, name, problems)  # a bad one: the default, not the file's
            sources[key] = SettingSource(SettingOrigin.ENV, name)
    add_secret(values.get("api_key"))
    kept = {k: v for k, v in values.items() if v is not None}
    # a key whose value was refused has its default, and so no source (alert thresholds: only good ones have one)
    kept_sources = {k: s for k, s in sources.items() if k in kept or k.startswith("watch.alerts.")}
    return Config(**kept, problems=tuple(problems), sources=kept_sources)
