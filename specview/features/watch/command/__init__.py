"""`specview watch --url URL`: monitor everything a server serves, from /metrics deltas.

No prompt of ours: drafts/s, accepted/s, α, mean accepted length, per-position acceptance,
tokens/s and running requests, over time, with counter resets (a restarted server) and broken
counter invariants shown. In a terminal it opens the monitor screen; `--json` prints one object
per poll, `--count N` stops after N polls (both work without a terminal).

Several servers (`--url` more than once, `--targets FILE`, `--prometheus URL`) are a fleet:
fleet_run.py. So are the fleet's own outputs (--once, --csv, --check, --on-alert, --retention)
with one --url; one --url alone is the single-server monitor as it always was.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from specview.cli.argtypes import Parser, SubParsers, float_in, fps_option, int_in, lang_option, server_option
from specview.cli.timeout_args import timeout_options
from specview.features.watch.command.fleet_args import add_fleet_options, is_fleet

if TYPE_CHECKING:
    from specview.features.watch.model import WatchSample
    from specview.features.watch.source import ServerWatch
    from specview.features.watch.source.plain_feed import PlainFeed


def register(sub: SubParsers, selectors: Parser) -> None:
    watch = sub.add_parser("watch", help="cli_help.watch.help", description="cli_help.watch.description")
    watch.add_argument("--url", action="append", metavar="URL",
                       help="cli_help.watch.url")
    watch.add_argument("-d", "--interval", type=float_in(0.05, 3600.0, "--interval"), default=2.0, metavar="S",
                       help="cli_help.watch.interval")
    watch.add_argument("--count", type=int_in(1, 10_000_000, "--count"), metavar="N",
                       help="cli_help.watch.count")
    watch.add_argument("--json", action="store_true", help="cli_help.watch.json")
    watch.add_argument("--baseline", metavar="URL|FILE", help="cli_help.watch.baseline")
    server_option(watch, "cli_help.watch.server", default=argparse.SUPPRESS)
    watch.add_argument("--api-key-env", metavar="NAME", default=argparse.SUPPRESS,
                       help="cli_help.api_key_env")
    lang_option(watch, default=argparse.SUPPRESS)
    fps_option(watch)
    timeout_options(watch, streams=False, default=argparse.SUPPRESS)
    add_fleet_options(watch)
    watch.set_defaults(run=run)


def open_watch(args: argparse.Namespace, lang: str) -> tuple[ServerWatch, PlainFeed, str | None]:
    """The ServerWatch the options describe (BackendError, exit 2, when it cannot be watched), the
    crossover's baseline (`--baseline URL` scraped beside it, or `--baseline-tps`), and the notice
    that OPENAI_API_KEY is not sent to them (None: nothing to say)."""
    from specview.catalog.config import load_config
    from specview.cli.runspec_args import api_key_of, withheld_key_notice
    from specview.cli.timeout_args import timeouts_of
    from specview.cli.waiting import announced_wait
    from specview.features.watch.command.baseline_file import baseline_asked
    from specview.features.watch.command.fleet_args import rules_of
    from specview.features.watch.source import ServerWatch
    from specview.features.watch.source.plain_feed import PlainFeed

    config = load_config()
    key, key_env = api_key_of(args, config)
    url, plain_url, fixed = args.url[0], args.baseline, baseline_asked(args, rules_of(args, config))
    if not isinstance(fixed, str):  # a sweep's file, a number given, or none: no server to scrape
        plain_url = None
    notice = withheld_key_notice(key, [url] + ([plain_url] if plain_url else []), lang)
    with announced_wait(lang):  # the first /metrics, detection: said, and q ends it
        source = ServerWatch(url, key, key_env, getattr(args, "server", None), timeouts_of(args, config))
        try:
            plain = ServerWatch(plain_url, key, key_env, None, timeouts_of(args, config)) if plain_url else None
        except BaseException:
            source.close()
            raise
    return source, PlainFeed(plain, None if isinstance(fixed, str) else fixed), notice


def run(args: argparse.Namespace) -> int:
    from specview.kernel.errors import CliError
    from specview.kernel.langs import DEFAULT_LANG

    if is_fleet(args):
        from specview.features.watch.command.fleet_run import run_fleet

        return run_fleet(args)
    if not args.url:
        raise CliError("watcherr.command.no_url")

    if not args.json and sys.stdout.isatty() and args.count is None:
        from specview.cli.app_run import run_app, throttle_of, ui_settings
        from specview.features.watch.app import WatchApp

        ui = ui_settings(args)
        source, plain, notice = open_watch(args, ui.lang)
        return run_app(WatchApp(source, interval=args.interval, theme_name=ui.theme, lang=ui.lang,
                                problems=ui.problems, keymap=ui.keymap, throttle=throttle_of(ui), plain=plain),
                       [notice])
    from specview.cli.runspec_args import warn_notice

    lang = getattr(args, "lang", None) or DEFAULT_LANG
    source, plain, notice = open_watch(args, lang)
    warn_notice(notice)
    return run_headless(source, args.interval, args.count, as_json=args.json, lang=lang, plain=plain)


def run_headless(source: ServerWatch, interval: float, count: int | None, *, as_json: bool, lang: str,
                 plain: PlainFeed | None = None) -> int:
    """Poll and print until `count` samples (or Ctrl-C): one line, or one JSON object, per poll;
    `plain` (a plain server scraped beside, or a number given) is the load table's baseline."""
    from specview.boundary.jsonio import dumps
    from specview.boundary.text import sanitize
    from specview.features.live.run_text import note_texts
    from specview.features.watch.model import WatchModel
    from specview.features.watch.model.by_load import LoadTable
    from specview.features.watch.model.cadence import cadence_phrase
    from specview.features.watch.screen.load_text import load_lines
    from specview.kernel.errors import SpecviewError
    from specview.kernel.poller import Poller
    from specview.texts.catalog import text
    from specview.tui.gauges import violation_text

    model = WatchModel()
    by_load = LoadTable(source.kind.active_gauge)  # α, yield, τ, tokens/s per running requests: `by_load`
    if not as_json:
        print(sanitize(source.describe(), 200, one_line=True), flush=True)
        cadence = cadence_phrase(source.kind.counters_update)
        if cadence is not None:  # said once: every rate below comes in steps
            print(cadence.render(lang), flush=True)
    printed = 0
    failed: list[SpecviewError] = []

    def take(sample: WatchSample | SpecviewError | None) -> None:
        nonlocal printed
        if isinstance(sample, SpecviewError):  # the server stopped answering: the command's error
            failed.append(sample)
            return
        if sample is None:
            return
        printed += 1
        by_load.add(sample)
        by_load.baseline = plain.baseline() if plain is not None else None
        if as_json:  # each note with its text, e.g. "/metrics: 2 lines skipped (over 4096 bytes)"
            record = sample.to_dict()
            record["notes"] = [{**n.to_dict(), "text": t} for n in sample.notes for t in note_texts((n,), lang)]
            record["by_load"] = by_load.to_dict()
            print(dumps(record), flush=True)
        else:
            print(line(sample, lang), flush=True)
            for v in sample.violations:
                print(f"  ! {text('watch.invariant', lang)}: {violation_text(v, lang)}", flush=True)
            for note in note_texts(sample.notes, lang):
                print(f"  ! {note}", flush=True)
        if count is not None and printed >= count:
            poller.stop()

    def poll() -> WatchSample | None:
        if plain is not None:
            plain.poll()  # the same instant, as near as two scrapes in a row allow
        return model.feed(source.scrape())

    def interrupt() -> None:  # stopping never waits on either server
        source.interrupt()
        if plain is not None:
            plain.interrupt()

    poller: Poller[WatchSample | None] = Poller(poll, take, interval, stop_on_error=True, interrupt=interrupt)
    interrupted = False
    try:
        poller.run()
    except KeyboardInterrupt:  # Ctrl-C ends the watch as --count does: the summary, then exit 130
        interrupted = True
    finally:
        source.close()
        if plain is not None:
            plain.close()
    if failed:
        raise failed[0]
    if not model.has_drafts and not as_json:
        print(text("watch.no_counters", lang), flush=True)
    elif not as_json:  # what the polls add up to, per running requests
        for said in load_lines(by_load, lang):
            print(said, flush=True)
    if interrupted:
        raise KeyboardInterrupt
    return 0


def line(sample: WatchSample, lang: str) -> str:
    """One human line per poll: the monitor's gauges (the gauge table's WATCH view), then the
    per-position acceptance."""
    from specview.features.watch.model.position_reading import position_reading
    from specview.kernel.gauges import WATCH, gauges, position_texts
    from specview.texts.catalog import fill, text

    parts = [f"{text(spec.short_id, lang)} {spec.formatted_watched(sample)}" for spec in gauges(WATCH)]
    reading, values = position_reading(sample)  # the bars' reading and words
    pos = " ".join(said for _, said in position_texts(values)) or "—"
    said = text(f"watch.reading.short_{reading}", lang)
    parts.insert(4, f"{text('watch.by_position', lang)} ({said}) {pos}")
    if sample.accept_length_from_requests is not None:
        parts.append(fill("watch.requests_accept_length", lang, value=f"{sample.accept_length_from_requests:.2f}"))
    if sample.reset:
        parts.append(text("watch.reset", lang))
    return " · ".join(parts)
