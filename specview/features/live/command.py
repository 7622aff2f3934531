"""The default command: build the backend (errors exit 2 before any UI; a wait on a server is
announced and `q` ends it, cli/waiting.py), then run the app. Where standard output is no terminal
the line says to run `bench --json` instead (cli/not_a_terminal.py)."""

from __future__ import annotations

import argparse

from specview.cli.app_run import run_app, throttle_of, ui_settings
from specview.cli.not_a_terminal import terminal_checked
from specview.cli.runspec_args import spec_from_args, specs_key_notice
from specview.cli.waiting import waiting_on
from specview.texts.catalog import Phrase


def run_live(args: argparse.Namespace) -> int:
    from specview.backends.factory import make_backend

    ui = ui_settings(args)
    if args.record:
        from specview.features.record.recorder import check_record_path

        check_record_path(args.record, force=args.force)
    spec = spec_from_args(args, speed=ui.speed, config=ui.config)
    with terminal_checked([spec], Phrase("not_a_terminal.what.live"), "specview bench --json"), \
            waiting_on([spec], ui.lang):
        backend = make_backend(spec)
    from specview.features.live.app import SpecviewApp

    return run_app(SpecviewApp(spec, backend=backend, theme_name=ui.theme, lang=ui.lang, record=args.record,
                               problems=ui.problems, keymap=ui.keymap, export_dir=ui.config.export_dir,
                               throttle=throttle_of(ui)), [specs_key_notice([spec], ui.lang)])
