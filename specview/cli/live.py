"""The default command: build the backend (errors exit 2 before any UI), then run the app."""

from __future__ import annotations

import argparse

from specview.cli.bench import spec_from_args
from specview.cli.errors import CliError


def run_live(args: argparse.Namespace) -> int:
    from specview.backends.factory import make_backend
    from specview.core.config import load_config

    config = load_config()
    speed = args.speed if args.speed is not None else (config.speed if config.speed is not None else 1.0)
    spec = spec_from_args(args, speed=speed, config=config)
    backend = make_backend(spec)
    from specview.tui.app import SpecviewApp

    if args.record:
        from specview.backends.record import check_record_path

        check_record_path(args.record)
    app = SpecviewApp(spec, backend=backend, theme_name=None, lang=args.lang or config.lang or "en",
                      record=args.record, problems=config.problems)
    if args.theme:
        if args.theme not in app.available_themes:
            backend.close()
            known = ", ".join(sorted(app.available_themes))
            raise CliError(f"unknown theme '{args.theme}'; known themes: {known}")
        app.theme = args.theme
    elif config.theme:
        if config.theme in app.available_themes:
            app.theme = config.theme
        else:
            app.problems += (f"config: unknown theme '{config.theme}'; using the default",)
    app.run()
    return app.return_code or 0
