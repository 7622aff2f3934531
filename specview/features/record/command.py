"""`specview replay FILE[#N] [--speed X] [--json | --markdown [OUT]]`: play a recording, or report on it.

With --json every run in the file (or run N) prints the same stats object `bench --json`
printed for it. A damaged line stops there: the statistics of what came before it are printed,
then the error (file and line) goes to stderr and the exit code is 2. With --markdown the run's
report (the one `e` writes in the live view) goes to OUT, by default next to the recording; an
existing OUT is replaced only with --force.
"""

from __future__ import annotations

import argparse
import shlex

from specview.cli.app_run import run_app, throttle_of, ui_settings
from specview.cli.argtypes import Parser, SubParsers, fps_option, lang_option, speed_option
from specview.cli.errors import CliError
from specview.cli.not_a_terminal import terminal_checked
from specview.kernel.os_reason import os_reason
from specview.kernel.runspec import RunSpec
from specview.texts.catalog import Phrase


def run_replay(args: argparse.Namespace) -> int:
    if getattr(args, "gamma", None) == "auto":  # a replay ignores the run options, but auto asks what it cannot do
        raise CliError("backenderr.factory.auto_replay")  # what the replay backend unit says of it
    from specview.backends.replay import ReplayOptions, make_replay_backend

    if args.json:
        return print_stats(args.file)
    if args.markdown is not None:
        return write_markdown(args.file, args.markdown or None, args.lang, force=args.force)
    ui = ui_settings(args)
    # the pace of a replay is relative to the recording: the config's simulator pace does not apply
    spec = RunSpec(options=ReplayOptions(recording=args.file), speed=1.0 if args.speed is None else args.speed)
    with terminal_checked([spec], Phrase("not_a_terminal.what.replay"),
                          shlex.join(["specview", "replay", args.file, "--json"])):
        backend = make_replay_backend(spec)
    from specview.features.live.app import SpecviewApp

    return run_app(SpecviewApp(spec, backend=backend, theme_name=ui.theme, lang=ui.lang, problems=ui.problems,
                               keymap=ui.keymap, export_dir=ui.config.export_dir, throttle=throttle_of(ui)))


def print_stats(selector: str) -> int:
    """One JSON line per run in the recording (or the one `FILE#N` names), as bench prints it."""
    from specview.backends.replay import ReplayBackend, split_segment
    from specview.kernel.errors import BackendError
    from specview.kernel.session import Session
    from specview.report.run_json import stats_dict

    path, only = split_segment(selector)
    first = ReplayBackend(path, segment=only or 1, speed=0.0)
    runs = [first.segment] if only else list(range(1, first.segments + 1))
    for run in runs:
        backend = first if run == first.segment else ReplayBackend(path, segment=run, speed=0.0,
                                                                   headers=first.headers)
        session = Session(backend)
        pieces: list[str] = []
        try:
            pieces.extend(rnd.text for rnd in session.run_headless())
        except BackendError as exc:
            done = session.metrics.rounds
            if done:
                _print(stats_dict(backend.recorded_info, session.metrics.snapshot(), "".join(pieces)))
                raise CliError("recorderr.stopped_after", error=exc, rounds=done) from None
            raise
        _print(stats_dict(backend.recorded_info, session.metrics.snapshot(), "".join(pieces)))
    return 0


def write_markdown(selector: str, out: str | None, lang: str | None, *, force: bool = False) -> int:
    """Write the Markdown report of the run in `selector` (FILE or FILE#N) and print where; an
    existing OUT is replaced only with `force`, and never through a link."""
    from pathlib import Path

    from specview.backends.replay import ReplayBackend, split_segment
    from specview.boundary.safe_files import write_new
    from specview.catalog.config import load_config
    from specview.features.record.markdown import markdown_report
    from specview.kernel.session import Session

    path, only = split_segment(selector)
    target = Path(out).expanduser() if out else path.with_name(f"{path.stem}{f'-run{only}' if only else ''}.md")
    backend = ReplayBackend(path, segment=only or 1, speed=0.0)
    session = Session(backend)
    rounds = list(session.run_headless())
    reconciles = backend.info.reconciles
    shown = session.history if reconciles else rounds  # a reconcile replaced inferred rounds
    report = markdown_report(backend.header.data, backend.recorded_info, session.metrics.snapshot(), shown,
                             lang=lang or load_config().lang or "en", recording=path.name,
                             dropped_rounds=session.dropped_rounds if reconciles else 0)
    try:
        write_new(target, report, replace=force)
    except FileExistsError:
        raise CliError("recorderr.exists", path=target) from None
    except OSError as exc:
        raise CliError("recorderr.cannot_write_file", path=target, reason=os_reason(exc)) from None
    print(target)
    return 0


def _print(stats: dict[str, object]) -> None:
    from specview.boundary.jsonio import dumps

    print(dumps(stats), flush=True)


def register(sub: SubParsers, selectors: Parser) -> None:
    replay = sub.add_parser("replay", help="cli_help.replay.help")
    replay.add_argument("file", metavar="FILE", help="cli_help.replay.file")
    speed_option(replay, "cli_help.replay.speed")
    fps_option(replay)
    output = replay.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="cli_help.replay.json")
    output.add_argument("--markdown", nargs="?", const="", metavar="OUT",
                        help="cli_help.replay.markdown")
    replay.add_argument("--force", action="store_true", default=argparse.SUPPRESS,
                        help="cli_help.replay.force")
    lang_option(replay, default=argparse.SUPPRESS)
    replay.set_defaults(run=run_replay)
