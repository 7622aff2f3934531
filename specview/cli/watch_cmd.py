"""`specview watch --url URL`: monitor everything a server serves, from /metrics deltas.

No prompt of ours: drafts/s, accepted/s, α, mean accepted length, per-position acceptance,
tokens/s and running requests, over time, with counter resets (a restarted server) and broken
counter invariants shown. In a terminal it opens the monitor screen; `--json` prints one object
per poll, `--count N` stops after N polls (both work without a terminal).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from specview.cli.argtypes import Parser, SubParsers, float_in, int_in


def register(sub: SubParsers, selectors: Parser) -> None:
    from specview.backends.remote.registry import server_ids

    watch = sub.add_parser("watch", help="monitor a server's speculative decoding from its /metrics",
                           description="Poll a server's /metrics (llama-server with --metrics, vLLM, SGLang) "
                           "and show what speculation does across every request it serves.")
    watch.add_argument("--url", required=True, metavar="URL", help="server base URL, e.g. http://127.0.0.1:8080")
    watch.add_argument("--interval", type=float_in(0.05, 3600.0, "--interval"), default=1.0, metavar="S",
                       help="seconds between polls (default: 1)")
    watch.add_argument("--count", type=int_in(1, 10_000_000, "--count"), metavar="N",
                       help="stop after N polls (default: until q or Ctrl-C)")
    watch.add_argument("--json", action="store_true", help="print one JSON object per poll (no terminal UI)")
    watch.add_argument("--server", choices=("auto", *server_ids()), default=argparse.SUPPRESS,
                       help="server family (default: detect)")
    watch.add_argument("--api-key-env", metavar="NAME", default=argparse.SUPPRESS,
                       help="environment variable holding the API key (default: OPENAI_API_KEY)")
    watch.add_argument("--lang", choices=("en", "zh"), default=argparse.SUPPRESS, help="interface language")
    watch.set_defaults(run=run)


def open_watch(args: argparse.Namespace) -> object:
    """The ServerWatch the options describe (BackendError, exit 2, when it cannot be watched)."""
    from specview.backends.remote.watch_source import ServerWatch
    from specview.cli.runspec_args import resolve_api_key
    from specview.core.config import load_config

    config = load_config()
    key_env = getattr(args, "api_key_env", None) or config.api_key_env
    server = getattr(args, "server", None)
    return ServerWatch(args.url, resolve_api_key(key_env, config), key_env,
                       None if server in (None, "auto") else server)


def run(args: argparse.Namespace) -> int:
    from specview.backends.remote.watch_source import ServerWatch

    source = open_watch(args)
    assert isinstance(source, ServerWatch)
    if not args.json and sys.stdout.isatty() and args.count is None:
        from specview.cli.app_run import run_app, ui_settings
        from specview.tui.watch_app import WatchApp

        ui = ui_settings(args)
        return run_app(WatchApp(source, interval=args.interval, theme_name=ui.theme, lang=ui.lang,
                                problems=ui.problems))
    return run_headless(source, args.interval, args.count, as_json=args.json, lang=getattr(args, "lang", None))


def run_headless(source: object, interval: float, count: int | None, *, as_json: bool,
                 lang: str | None = None) -> int:
    """Poll and print until `count` samples (or Ctrl-C)."""
    from specview.backends.remote.watch_source import ServerWatch
    from specview.core.watch import WatchModel
    from specview.texts.catalog import text

    assert isinstance(source, ServerWatch)
    lang = lang or "en"
    model = WatchModel()
    if not as_json:
        print(source.describe(), flush=True)
    printed = 0
    try:
        while count is None or printed < count:
            sample = model.feed(source.scrape())
            if sample is not None:
                printed += 1
                if as_json:
                    print(json.dumps(sample.to_dict(), ensure_ascii=False), flush=True)
                else:
                    print(line(sample, lang), flush=True)
                    for v in sample.violations:
                        print(f"  ! {text('watch_invariant', lang)}: {v.rule} ({v.where}: {v.detail})", flush=True)
            if count is None or printed < count:
                time.sleep(interval)
    finally:
        source.close()
    if not model.has_drafts and not as_json:
        print(text("watch_no_counters", lang), flush=True)
    return 0


def line(sample: object, lang: str) -> str:
    """One human line per poll."""
    from specview.core.text import number
    from specview.core.watch import WatchSample
    from specview.texts.catalog import text

    assert isinstance(sample, WatchSample)
    pos = " ".join(number(a, ".2f") for a in sample.per_position_acceptance) or "—"
    parts = [
        f"{text('watch_drafts_s', lang)} {number(sample.drafts_per_s, '.1f')}",
        f"{text('watch_accepted_s', lang)} {number(sample.accepted_per_s, '.1f')}",
        f"α {number(sample.alpha, '.3f')}",
        f"{text('watch_mean_len', lang)} {number(sample.mean_accepted_length, '.2f')}",
        f"{text('watch_by_position', lang)} {pos}",
        f"{text('tps', lang)} {number(sample.tokens_per_s, '.1f')}",
        f"{text('watch_active', lang)} {number(sample.active, 'g')}",
    ]
    if sample.reset:
        parts.append(text("watch_reset", lang))
    return " · ".join(parts)
