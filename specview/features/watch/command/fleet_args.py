"""The fleet watch's options: targets, history, outputs, alert thresholds, Prometheus.

A threshold's flag and its `[watch.alerts]` key (catalog/config.py) share their range; the flag
wins over the file, the file over the default (model/alert_rules.py). The Prometheus options
are read by the Prometheus source (`source/prometheus.py: prometheus_fleet_of`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from specview.cli.argtypes import Parser, float_in, int_in
from specview.cli.help_format import Help

if TYPE_CHECKING:
    from specview.catalog.config import Config
    from specview.features.watch.model.alert_rules import AlertRules

DEFAULT_RETENTION_S = 600.0
DEFAULT_HOOK_TIMEOUT_S = 10.0
# flag -> [watch.alerts] key (= AlertRules field); the ranges are the config's
THRESHOLDS = {"--alert-window": "window_s", "--min-accept-length": "min_accept_length", "--alpha-drop": "alpha_drop",
              "--min-drafts": "min_drafts", "--stall-polls": "stall_polls",
              "--baseline-tps": "baseline_tokens_per_s", "--outlier-p": "outlier_p", "--outlier-gap": "outlier_gap"}


def add_fleet_options(watch: Parser) -> None:
    from specview.catalog.config import WATCH_ALERTS, WHOLE_ALERT_KEYS

    fleet = watch.add_argument_group("cli_help.fleet.title", "cli_help.fleet.description")
    fleet.add_argument("--targets", type=Path, metavar="FILE", help="cli_help.fleet.targets")
    fleet.add_argument("--retention", type=float_in(1.0, 7 * 86_400.0, "--retention"), metavar="S",
                       help=Help("cli_help.fleet.retention", default=f"{DEFAULT_RETENTION_S:g}"))
    fleet.add_argument("--once", action="store_true",
                       help="cli_help.fleet.once")
    fleet.add_argument("--csv", action="store_true", help="cli_help.fleet.csv")
    fleet.add_argument("--check", action="store_true",
                       help="cli_help.fleet.check")
    fleet.add_argument("--on-alert", metavar="CMD",
                       help="cli_help.fleet.on_alert")
    fleet.add_argument("--on-alert-timeout", type=float_in(0.1, 3600.0, "--on-alert-timeout"), metavar="S",
                       default=DEFAULT_HOOK_TIMEOUT_S,
                       help=Help("cli_help.fleet.on_alert_timeout", default=f"{DEFAULT_HOOK_TIMEOUT_S:g}"))
    alerts = watch.add_argument_group("cli_help.alerts.title", "cli_help.alerts.description")
    for flag, key in THRESHOLDS.items():
        low, high = WATCH_ALERTS[key]
        kind = int_in(int(low), int(high), flag) if key in WHOLE_ALERT_KEYS else float_in(low, high, flag)
        alerts.add_argument(flag, dest=f"alert_{key}", type=kind, metavar="X", help=f"cli_help.alerts.{key}")
    add_prometheus_options(watch)


def add_prometheus_options(parser: Parser) -> None:
    """`--prometheus URL`, `--match SEL` and its credentials (read by `prometheus_fleet_of`);
    `specview doctor` takes the same."""
    prom = parser.add_argument_group("cli_help.prometheus.title", "cli_help.prometheus.description")
    prom.add_argument("--prometheus", metavar="URL", help="cli_help.prometheus.url")
    prom.add_argument("--match", metavar="SEL", help="cli_help.prometheus.match")
    prom.add_argument("--prometheus-user", metavar="NAME", help="cli_help.prometheus.user")
    prom.add_argument("--prometheus-password-env", metavar="VAR", help="cli_help.prometheus.password_env")
    prom.add_argument("--prometheus-token-env", metavar="VAR", help="cli_help.prometheus.token_env")


def is_fleet(args: argparse.Namespace) -> bool:
    """Whether these options ask for the fleet watch (one --url alone keeps the single-server one)."""
    return (len(args.url or ()) > 1 or args.targets is not None or args.prometheus is not None or args.once
            or args.csv or args.check or args.on_alert is not None or args.retention is not None)


def rules_of(args: argparse.Namespace, config: Config) -> AlertRules:
    """The thresholds: flags over `[watch.alerts]` over the defaults."""
    from dataclasses import replace

    from specview.catalog.config import WHOLE_ALERT_KEYS
    from specview.features.watch.model.alert_rules import AlertRules

    values: dict[str, float | int] = {}
    for key in THRESHOLDS.values():
        given = getattr(args, f"alert_{key}", None)
        value = given if given is not None else config.watch_alerts.get(key)
        if value is not None:
            values[key] = int(value) if key in WHOLE_ALERT_KEYS else float(value)
    return replace(AlertRules(), **values)  # type: ignore[arg-type]
