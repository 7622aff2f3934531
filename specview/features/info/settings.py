"""Each effective option and where it came from: the default, the config file, a SPECVIEW_* variable,
or the command line, strongest last (as the commands resolve them: cli/app_run.py's ui_settings,
cli/runspec_args.py, cli/timeout_args.py).

The config loader records where each of its values came from (catalog/config.py: `Config.sources`);
the command line is the one origin it never sees, and is added here. Every key the config file
takes is listed, set or not; a run option the config has no key for is listed when it is given.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from specview.catalog.config import WATCH_ALERTS, SettingOrigin, SettingSource

if TYPE_CHECKING:
    from specview.catalog.config import Config

# options of the main parser that set a config key and are no RunSpec field (cli/parser.py)
MAIN_OPTIONS = {"theme": "--theme", "speed": "--speed", "fps": "--fps"}
SECRET_KEYS = frozenset({"api_key"})  # shown as set or not, never as a value
NOT_SETTINGS = ("problems", "sources", "watch_alerts")  # Config fields that are not keys of the file
ALERT_PREFIX = "watch.alerts."


@dataclass(frozen=True, slots=True)
class Setting:
    """One option: its key (the config file's; `watch.alerts.<key>` for a threshold), its value
    (None: the default has no value of its own, render.py says what happens then) and its source."""

    key: str
    value: Any
    source: SettingSource
    option: str | None = None  # the command-line option that sets it, if any


def config_keys() -> list[str]:
    """Every key the config file takes, in the Config's order, `[watch.alerts]` spelt out."""
    from specview.catalog.config import Config

    keys = [name for name in Config.__dataclass_fields__ if name not in NOT_SETTINGS]
    return keys + [f"{ALERT_PREFIX}{name}" for name in WATCH_ALERTS]


def defaults() -> dict[str, Any]:
    """Each key's default where it is a value (the others are left out: their default is a behaviour)."""
    from specview.backends.remote.timeouts import Timeouts
    from specview.catalog.config import DEFAULT_SERVE_SESSIONS
    from specview.catalog.presets import DEFAULT_PRESET
    from specview.features.watch.model.alert_rules import AlertRules
    from specview.kernel.langs import DEFAULT_LANG
    from specview.kernel.runspec import default_of
    from specview.themes import DEFAULT_THEME
    from specview.tui.pump import Throttle

    waits, rules = Timeouts(), AlertRules()
    found: dict[str, Any] = {
        "theme": DEFAULT_THEME, "lang": DEFAULT_LANG, "preset": DEFAULT_PRESET, "speed": default_of("speed"),
        "fps": Throttle.default().pump_hz, "connect_timeout": waits.connect, "request_timeout": waits.request,
        "read_timeout": waits.read, "stream_timeout": waits.stream, "serve_max_sessions": DEFAULT_SERVE_SESSIONS,
    }
    found.update((f"{ALERT_PREFIX}{name}", getattr(rules, name)) for name in WATCH_ALERTS)
    return found


def run_options() -> dict[str, tuple[str, Any]]:
    """Every run option by field name, with its default: RunSpec's shared ones and each backend's own
    record's (`--repack` is the local backend's: backends/local/run_options.py)."""
    from dataclasses import MISSING, fields

    from specview.backends.factory import BACKENDS
    from specview.kernel.runspec import OPTION, RunSpec
    from specview.plugins.surface import units

    found: dict[str, tuple[str, Any]] = {}
    records: list[Any] = [RunSpec, *(unit.options for unit in units(BACKENDS))]
    for record in records:
        for f in fields(record):
            if OPTION in f.metadata and f.name not in found:
                found[f.name] = (str(f.metadata[OPTION]), None if f.default is MISSING else f.default)
    return found


def option_for(key: str) -> str | None:
    """The command-line option that sets `key` (None: only the config and the environment do)."""
    known = run_options().get(key)
    return MAIN_OPTIONS.get(key) or (known[0] if known else None)


def _configured(config: Config, key: str) -> Any:
    if key.startswith(ALERT_PREFIX):
        return config.watch_alerts.get(key.removeprefix(ALERT_PREFIX))
    value = getattr(config, key)
    return (value or None) if isinstance(value, dict) else value  # an empty keymap is none


def effective(args: argparse.Namespace, config: Config) -> list[Setting]:
    """Every config key with its value and origin, then each other run option the command line gives."""
    fallback = defaults()
    found: list[Setting] = []
    for key in config_keys():
        option = option_for(key)
        given = getattr(args, key, None) if option else None
        if given is not None:
            found.append(Setting(key, given, SettingSource(SettingOrigin.OPTION, option or ""), option))
        elif (value := _configured(config, key)) is not None:
            found.append(Setting(key, value, config.source(key), option))
        else:
            found.append(Setting(key, fallback.get(key), SettingSource(), option))
    return found + _other_options(args, set(config_keys()))


def _other_options(args: argparse.Namespace, keys: set[str]) -> list[Setting]:
    """The run options given that no config key stands for (a flag left off, the default seed: not given)."""
    found = []
    for name, (option, default) in run_options().items():
        value = getattr(args, name, None)
        if name in keys or value is None or value is False or value == default:
            continue
        found.append(Setting(name, value, SettingSource(SettingOrigin.OPTION, option), option))
    return found
