"""`specview compare A B [C D]`: build every backend first (errors exit 2), then the screen."""

from __future__ import annotations

import argparse

from specview.cli.app_run import run_app, ui_settings
from specview.cli.bench import specs_from_args
from specview.cli.errors import CliError


def run_compare(args: argparse.Namespace) -> int:
    from specview.backends.factory import make_backend

    if not 2 <= len(args.selectors) <= 4:
        raise CliError(f"compare takes 2 to 4 runs, got {len(args.selectors)}")
    ui = ui_settings(args)
    specs = specs_from_args(args, speed=ui.speed, max_rounds=None, config=ui.config)
    backends = []
    try:
        for spec in specs:
            backends.append(make_backend(spec))
    except Exception:
        for backend in backends:
            backend.close()
        raise
    from specview.tui.app import SpecviewApp

    return run_app(SpecviewApp(specs[0], backends[0], theme_name=ui.theme, lang=ui.lang, compare=backends,
                               problems=ui.problems))
