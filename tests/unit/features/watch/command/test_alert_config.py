"""`[watch.alerts]` in the config file: good thresholds apply, bad ones are named and ignored,
and a flag wins over the file."""

from __future__ import annotations

import argparse
from pathlib import Path

from specview.catalog.config import load_config
from specview.cli.parser import build_parser
from specview.features.watch.command.fleet_args import rules_of


def test_thresholds_from_the_file_and_flags_over_them(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[watch.alerts]\nalpha_drop = 0.3\nmin_drafts = 50\nbaseline_tokens_per_s = 12.5\n")
    config = load_config(path)
    assert config.problems == ()
    assert config.watch_alerts == {"alpha_drop": 0.3, "min_drafts": 50.0, "baseline_tokens_per_s": 12.5}
    args = build_parser().parse_args(["watch", "--url", "http://127.0.0.1:1", "--alpha-drop", "0.1"])
    assert isinstance(args, argparse.Namespace)
    rules = rules_of(args, config)
    assert rules.alpha_drop == 0.1 and rules.min_drafts == 50 and isinstance(rules.min_drafts, int)
    assert rules.baseline_tokens_per_s == 12.5 and rules.min_accept_length == 1.05  # the default


def test_bad_thresholds_are_named_and_the_defaults_used(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[watch]\nrefresh = 2\n[watch.alerts]\nalpha_drop = 2.5\nmin_drafts = 1.5\n'
                    'outlier_p = "often"\nwindow_s = inf\nloud = true\nmin_accept_length = 1.2\n')
    config = load_config(path)
    assert config.watch_alerts == {"min_accept_length": 1.2}
    problems = "\n".join(map(str, config.problems))
    for needed in ("[watch] 'refresh'", "alpha_drop must be a number between 0 and 1, got 2.5",
                   "min_drafts must be a whole number", "outlier_p must be a number", "window_s must be a number",
                   "unknown key [watch.alerts] 'loud'"):
        assert needed in problems, problems
    assert all(str(path) in str(p) for p in config.problems)


def test_watch_must_be_a_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('watch = "yes"\n')
    config = load_config(path)
    assert config.watch_alerts == {} and "[watch] must be a table" in str(config.problems[0])
