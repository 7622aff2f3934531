"""`specview watch` over a fleet: direct targets or Prometheus, on the fleet screen or headless.

The source is polled by the one poller (kernel/poller.py) every `--interval`; each poll's
readings are folded by the FleetModel into a snapshot, which is printed (JSON Lines, CSV or
lines), checked (`--check`) and handed to `--on-alert`. A snapshot is printed once the rates
exist: direct targets need two scrapes, so the first poll of a fresh target prints nothing
(unless the second poll still lacks a target's rates: it is printed as it is).

A terminal with no --json/--csv/--check/--count/--once opens the fleet screen
(features/watch/fleet_app.py) where this build has one; otherwise a notice, and the lines.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from types import FrameType
from typing import TYPE_CHECKING, TextIO

from specview.kernel.errors import CliError, SpecviewError, describe_error

if TYPE_CHECKING:
    from collections.abc import Callable

    from specview.catalog.config import Config
    from specview.features.watch.model.alert_rules import AlertRules
    from specview.features.watch.model.fleet import FleetSnapshot, FleetSource, InstanceReading
    from specview.features.watch.model.fleet_model import FleetModel
    from specview.features.watch.runner.alert_hook import HookRun

    Handler = Callable[[int, FrameType | None], object] | int | None  # what signal.signal takes and returns

MIN_DEADLINE_S = 2.0  # a direct target answers within max(interval, this) unless --request-timeout says


def run_fleet(args: argparse.Namespace) -> int:
    from specview.catalog.config import load_config
    from specview.features.watch.command.baseline_file import baseline_asked
    from specview.features.watch.command.fleet_args import DEFAULT_RETENTION_S, rules_of
    from specview.features.watch.model.fleet_model import FleetModel
    from specview.kernel.langs import DEFAULT_LANG

    if args.check and not (args.once or args.count):
        raise CliError("watcherr.command.check_needs_count")
    if sum((args.json, args.csv)) > 1:
        raise CliError("watcherr.command.json_and_csv")
    if args.on_alert is not None:
        from specview.features.watch.runner.alert_hook import command_argv

        command_argv(args.on_alert)  # a command that cannot be split is said before any server is asked
    config = load_config()
    rules = rules_of(args, config)
    retention = args.retention if args.retention is not None else DEFAULT_RETENTION_S
    headless = args.json or args.csv or args.check or args.once or args.count is not None or not sys.stdout.isatty()
    if not headless:
        app_code = _run_screen(args, config, rules, retention)
        if app_code is not None:
            return app_code
    lang = getattr(args, "lang", None) or DEFAULT_LANG
    source = open_fleet(args, config, lang)
    model = FleetModel(args.interval, retention, rules, baseline_asked(args, rules))
    return run_headless_fleet(source, model, args, lang)


def open_fleet(args: argparse.Namespace, config: Config, lang: str) -> FleetSource:
    """The FleetSource the options describe: Prometheus, or the targets scraped directly."""
    if args.prometheus is not None:
        if args.url or args.targets is not None:
            raise CliError("watcherr.command.prometheus_and_urls")
        try:
            from specview.features.watch.source.prometheus import prometheus_fleet_of
        except ImportError:
            raise CliError("watcherr.command.no_prometheus") from None
        from specview.cli.timeout_args import timeouts_of

        source: FleetSource = prometheus_fleet_of(args, timeouts_of(args, config))
        return source
    from specview.cli.runspec_args import api_key_of, warn_notice, withheld_key_notice
    from specview.cli.timeout_args import chosen, timeouts_of
    from specview.features.watch.command.targets import all_targets
    from specview.features.watch.source.direct import DirectFleet

    urls = all_targets(args.url, args.targets)
    if not urls:
        raise CliError("watcherr.command.no_servers")
    key, key_env = api_key_of(args, config)
    warn_notice(withheld_key_notice(key, urls, lang))
    given = chosen(args, config, "request_timeout")
    deadline = given if given is not None else max(args.interval, MIN_DEADLINE_S)
    fleet = DirectFleet(urls, api_key=key, key_env=key_env, server=getattr(args, "server", None),
                        timeouts=timeouts_of(args, config), deadline_s=deadline)
    from specview.cli.waiting import announced_wait

    try:
        with announced_wait(lang):  # detection: said, and q ends it
            fleet.connect()
    except BaseException:
        fleet.close()
        raise
    return fleet


def _run_screen(args: argparse.Namespace, config: Config, rules: AlertRules, retention: float) -> int | None:
    """The fleet screen, where this build has one (None: it has not; the caller prints lines).
    `--on-alert` runs from the fold there too (its failures are not said: stderr is the screen;
    its counts ride on each snapshot); its runs are stopped as the app quits and ended after it."""
    from specview.cli.app_run import run_app, throttle_of, ui_settings
    from specview.cli.runspec_args import warn_notice
    from specview.features.watch.command.baseline_file import baseline_asked
    from specview.features.watch.model.fleet_model import FleetModel
    from specview.texts.catalog import text

    ui = ui_settings(args)
    try:
        from specview.features.watch.fleet_app import FleetApp  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        warn_notice(text("fleet.no_screen", ui.lang))
        return None
    source = open_fleet(args, config, ui.lang)
    model = FleetModel(args.interval, retention, rules, baseline_asked(args, rules))
    hook = None
    if args.on_alert is not None:
        from specview.features.watch.runner.alert_hook import AlertHook

        hook = AlertHook(args.on_alert, rules.window_s, args.on_alert_timeout)

    def fold(readings: tuple[InstanceReading, ...]) -> FleetSnapshot:
        snap = model.fold(readings)
        if hook is not None:
            from dataclasses import replace

            from specview.boundary.jsonio import dumps
            from specview.features.watch.command.fleet_output import alert_record

            hook.fire(snap.alerts, lambda a: dumps(alert_record(a, ui.lang, rules.window_s)))
            snap = replace(snap, hooks=hook.counts())
        return snap

    open_server = getattr(source, "open_server", None)  # the direct fleet's: `enter` watches that server
    app = FleetApp(source, fold, args.interval, theme_name=ui.theme, lang=ui.lang, problems=ui.problems,
                   keymap=ui.keymap, throttle=throttle_of(ui), open_server=open_server,
                   quitting=hook.stop if hook is not None else None)
    try:
        return int(run_app(app, []))
    finally:
        if hook is not None:
            hook.close()  # whatever ended the app: no run outlives it


def run_headless_fleet(source: FleetSource, model: FleetModel, args: argparse.Namespace, lang: str,
                       out: TextIO | None = None) -> int:
    """Poll, fold and print until --count snapshots, --once, or Ctrl-C; the exit status."""
    from dataclasses import replace

    from specview.boundary.jsonio import dumps
    from specview.boundary.text import sanitize
    from specview.features.watch.command.fleet_output import (
        alert_lines,
        alert_record,
        csv_header,
        csv_rows,
        human_lines,
        snapshot_record,
    )
    from specview.features.watch.runner.alert_hook import AlertHook
    from specview.kernel.poller import Poller
    from specview.texts.catalog import fill, text

    out = out or sys.stdout
    hook = None
    if args.on_alert is not None:
        hook = AlertHook(args.on_alert, model.rules.window_s, args.on_alert_timeout,
                         done=lambda run: _told(run, lang, args.on_alert_timeout))
    wanted = 1 if args.once else args.count
    printed = 0
    fired = False

    def emit(snap: FleetSnapshot) -> None:
        if args.json:
            out.write(dumps(snapshot_record(snap, lang)) + "\n")
        elif args.csv:
            out.write(csv_rows(snap))
        elif args.check:
            lines = alert_lines(snap, lang)
            out.write("\n".join(lines or [text("fleet.no_alerts", lang)]) + "\n")
        else:
            out.write("\n".join(human_lines(snap, lang)) + "\n")
        out.flush()

    def take(readings: object) -> None:
        nonlocal printed, fired
        if isinstance(readings, SpecviewError):  # the source failed as a whole (Prometheus down)
            if model.polls == 0:
                raise readings  # before anything was watched: the command's one error line
            # later: said, and the next poll may answer
            _warn(sanitize(describe_error(readings, lang), 500, one_line=True))
            return
        assert isinstance(readings, tuple)
        snap = model.fold(readings)
        if not _has_rates(snap) and model.polls < 2:
            return
        if hook is not None:  # first, so the line printed says where the runs stand after it
            hook.fire(snap.alerts, lambda a: dumps(alert_record(a, lang, model.rules.window_s)))
            snap = replace(snap, hooks=hook.counts())
        emit(snap)
        printed += 1
        fired = fired or bool(snap.alerts)
        if wanted is not None and printed >= wanted:
            poller.stop()

    poller: Poller[object] = Poller(source.poll, take, args.interval, interrupt=source.interrupt,
                                    name="specview-fleet")
    if args.csv:
        out.write(csv_header())
    caught = _exit_on_stop_signals() if hook is not None else {}
    finished = False
    try:
        poller.run()
        finished = True
    finally:
        source.close()
        if hook is not None:
            # --count/--once: every alert queued gets its run (each bounded by its timeout);
            # Ctrl-C, SIGTERM or an error: the runs end now, their whole process groups
            hook.close(drain=finished and wanted is not None)
            if hook.coalesced or hook.not_run or hook.ended_at_exit:
                _warn(fill("alert_queue.exit", lang, coalesced=hook.coalesced, not_run=hook.not_run,
                           ended=hook.ended_at_exit))
        _restore_signals(caught)
    return 1 if args.check and fired else 0


def _exit_on_stop_signals() -> dict[int, Handler]:
    """SIGTERM and SIGHUP raise SystemExit (128 + the signal) so that the `finally` that ends the
    --on-alert runs is reached (by default they end the process at once and leave the runs behind);
    one more while those end is ignored. Only default handlers are replaced (nohup's SIG_IGN, or a
    caller's own, stays); returns the ones replaced, for `_restore_signals`."""
    stops = (signal.SIGTERM, signal.SIGHUP)

    def leave(signum: int, _frame: FrameType | None) -> None:
        for sig in stops:
            signal.signal(sig, signal.SIG_IGN)
        raise SystemExit(128 + signum)

    caught: dict[int, Handler] = {}
    for sig in stops:
        with contextlib.suppress(ValueError):  # not the main thread (a test's): the defaults stay
            if signal.getsignal(sig) is signal.SIG_DFL:
                caught[sig] = signal.signal(sig, leave)
    return caught


def _restore_signals(caught: dict[int, Handler]) -> None:
    for sig, handler in caught.items():
        signal.signal(sig, handler)


def _has_rates(snap: FleetSnapshot) -> bool:
    """Every instance that answered has a window of rates (direct targets: from their 2nd scrape)."""
    from specview.features.watch.model.fleet import State

    return all(row.window is not None for row in snap.rows if row.state is not State.DOWN)


def _told(run: HookRun, lang: str, timeout_s: float) -> None:
    """One line on stderr for an --on-alert run that did not end well (its output sanitized)."""
    from specview.boundary.text import sanitize
    from specview.texts.catalog import fill

    if run.stopped:  # ended with specview: counted in the line said at the end
        return
    instance = sanitize(run.alert.instance or "", 200, one_line=True)
    kind = run.alert.kind.value
    if run.error is not None:
        _warn(fill("fleet.hook_not_started", lang, error=sanitize(run.error, 200, one_line=True)))
    elif run.timed_out:
        _warn(fill("fleet.hook_timeout", lang, instance=instance, kind=kind, seconds=f"{timeout_s:g}"))
    elif run.status:
        output = sanitize(run.output.decode("utf-8", "replace").strip(), 300, one_line=True)
        _warn(fill("fleet.hook_failed", lang, instance=instance, kind=kind, status=run.status, output=output))


def _warn(line: str) -> None:
    from specview.cli.errors import warn

    warn(line)

