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

if TYPE_CHECKING:
    from specview.catalog.config import Config
    from specview.features.watch.model.alert_rules import AlertRules

DEFAULT_RETENTION_S = 600.0
DEFAULT_HOOK_TIMEOUT_S = 10.0
# flag -> [watch.alerts] key (= AlertRules field); the ranges are the config's
THRESHOLDS = {"--alert-window": "window_s", "--min-accept-length": "min_accept_length", "--alpha-drop": "alpha_drop",
              "--min-drafts": "min_drafts", "--stall-polls": "stall_polls",
              "--baseline-tps": "baseline_tokens_per_s", "--outlier-p": "outlier_p", "--outlier-gap": "outlier_gap"}
HELP = {
    "window_s": "seconds of history each alert test reads; --on-alert runs at most once per alert per window "
                "(default: 30)",
    "min_accept_length": "speculation 'not working' below this mean accepted length (default: 1.05)",
    "alpha_drop": "alert when α falls by more than this between two windows (default: 0.15)",
    "min_drafts": "drafts a window needs before its α counts (default: 20)",
    "stall_polls": "polls in a row with requests running and no counter moving that make 'stalled' (default: 2)",
    "baseline_tokens_per_s": "your measured tokens/s of one request without speculation: alert when a "
                             "running request gets less (default: no such alert)",
    "outlier_p": "flag an instance whose α is this unlikely under the fleet's pooled α (default: 0.001)",
    "outlier_gap": "…and at least this far from it (default: 0.05)",
}


def add_fleet_options(watch: Parser) -> None:
    from specview.catalog.config import WATCH_ALERTS, WHOLE_ALERT_KEYS

    fleet = watch.add_argument_group("fleet", "several servers at once (more than one --url, --targets or "
                                     "--prometheus; --once, --csv, --check and --on-alert also with one --url)")
    fleet.add_argument("--targets", type=Path, metavar="FILE",
                       help="a file with one server URL per line (# starts a comment)")
    fleet.add_argument("--retention", type=float_in(1.0, 7 * 86_400.0, "--retention"), metavar="S",
                       help=f"seconds of history kept per instance (default: {DEFAULT_RETENTION_S:g})")
    fleet.add_argument("--once", action="store_true",
                       help="one poll, printed, then exit (direct targets are scraped twice, one interval "
                            "apart, so rates exist)")
    fleet.add_argument("--csv", action="store_true", help="print CSV: a header, then one line per instance and poll "
                       "and one for the fleet's totals")
    fleet.add_argument("--check", action="store_true",
                       help="with --once or --count: print the alerts and exit 1 when any fired (cron, CI)")
    fleet.add_argument("--on-alert", metavar="CMD",
                       help="run CMD (split like a shell does, run without one) with the alert as JSON on its "
                            "stdin, at most once per alert per alert window")
    fleet.add_argument("--on-alert-timeout", type=float_in(0.1, 3600.0, "--on-alert-timeout"), metavar="S",
                       default=DEFAULT_HOOK_TIMEOUT_S,
                       help=f"stop an --on-alert run after S seconds (default: {DEFAULT_HOOK_TIMEOUT_S:g})")
    alerts = watch.add_argument_group("alerts", "thresholds (also [watch.alerts] in the config file)")
    for flag, key in THRESHOLDS.items():
        low, high = WATCH_ALERTS[key]
        kind = int_in(int(low), int(high), flag) if key in WHOLE_ALERT_KEYS else float_in(low, high, flag)
        alerts.add_argument(flag, dest=f"alert_{key}", type=kind, metavar="X", help=HELP[key])
    prom = watch.add_argument_group("prometheus", "read the fleet from a Prometheus server instead")
    prom.add_argument("--prometheus", metavar="URL", help="Prometheus base URL, e.g. http://127.0.0.1:9090")
    prom.add_argument("--match", metavar="SEL", help="a series selector that narrows the instances, "
                      "e.g. '{job=\"llama\"}'")
    prom.add_argument("--prometheus-user", metavar="NAME", help="basic-auth user for Prometheus")
    prom.add_argument("--prometheus-password-env", metavar="VAR",
                      help="environment variable holding that user's password")
    prom.add_argument("--prometheus-token-env", metavar="VAR",
                      help="environment variable holding a bearer token for Prometheus")


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
