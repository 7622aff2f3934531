"""`specview bench`: run headless through the same Session and print the stats objects."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from specview.cli.argtypes import Parser, SubParsers, int_in
from specview.cli.runspec_args import specs_from_args, specs_key_notice, warn_notice
from specview.kernel.runspec import RunSpec

if TYPE_CHECKING:
    from specview.kernel.gauges import Reading
    from specview.kernel.what_if import WhatIf


@dataclass(frozen=True, slots=True)
class BenchResult:
    """One run's stats object (what --json prints) and its reading (what --table shows)."""

    stats: dict[str, Any]
    reading: Reading
    what_if: WhatIf | None = None  # a local chain run's: what a tree would have had (kernel/what_if.py)


def bench_one(spec: RunSpec, rounds: int | None, record: str | None = None) -> BenchResult:
    """Run one spec headless to the end."""
    from specview.backends.factory import make_backend
    from specview.kernel.gauges import Reading
    from specview.kernel.session import Session
    from specview.report.run_json import stats_dict

    backend = make_backend(spec)
    session = Session(backend)
    if record:
        from specview.features.record.recorder import start_recording

        start_recording(session, record, spec)
    from specview.kernel.what_if import WhatIf

    done = list(session.run_headless(rounds))
    snap = session.metrics.snapshot()
    chain = spec.kind == "llama" and spec.tree is None and not spec.plain
    what_if = (snap.what_if or WhatIf()) if chain else None  # an n-gram chain has no q: the line says so
    return BenchResult(stats_dict(backend.info, snap, "".join(rnd.text for rnd in done)),
                       Reading.of(snap, backend.info), what_if)


RUN_WIDTH = 24
NAME_CHARS = 400  # of a run's name before it is shortened (a path, a server's model id)


def run_name(spec: RunSpec, reading: Reading) -> str:
    """What names a run in the table: its preset, its server (host:port, never credentials) and
    model, or its model file (and draft)."""
    from urllib.parse import urlsplit

    info = reading.info
    if info.preset:
        return info.preset
    from specview.backends.remote.options import remote_options

    url = remote_options(spec).url
    if url:
        server = urlsplit(url).netloc.rsplit("@", 1)[-1]
        return " ".join(filter(None, (server, info.model)))
    return " · ".join(filter(None, (info.model, info.draft))) or info.backend


def table_lines(readings: Sequence[Reading], specs: Sequence[RunSpec], lang: str) -> list[str]:
    """A fixed-width table for people: the run, then the gauge table's bench columns. Run names
    keep what tells them apart (the shared beginning of model paths or server addresses goes)."""
    from specview.boundary.text import sanitize
    from specview.cli.table import right_aligned
    from specview.kernel.gauges import BENCH, gauges
    from specview.report.run_names import distinct_names
    from specview.texts.catalog import text

    columns = gauges(BENCH)
    headers = [text("summary.run", lang), *(text(spec.short_id, lang) for spec in columns)]
    names = [sanitize(run_name(spec, r), NAME_CHARS, one_line=True) for spec, r in zip(specs, readings, strict=True)]
    rows = [[name, *(spec.formatted(r, windowed=False) for spec in columns)]
            for name, r in zip(distinct_names(names, RUN_WIDTH), readings, strict=True)]
    return right_aligned([headers, *rows], RUN_WIDTH)


def missing_lines(readings: list[Reading], lang: str) -> list[str]:
    """Under the table: the γ a server chose instead of the one asked, and why a run's "—" cells
    are "—" where its engine cannot give them (one line per run that has any, named when several)."""
    from specview.boundary.text import sanitize
    from specview.features.live.run_text import note_texts
    from specview.kernel.gauges import BENCH
    from specview.kernel.unmeasured import GAMMA_NOTES
    from specview.texts.catalog import fill
    from specview.tui.gauges import missing_texts

    lines = []
    for r in readings:
        said = note_texts((n for n in r.info.notes if n.id in GAMMA_NOTES), lang) + missing_texts(r, BENCH, lang)
        if said:
            joined = " · ".join(said)
            name = sanitize(r.info.run_label, RUN_WIDTH * 2, one_line=True)
            lines.append(joined if len(readings) == 1 else fill("measured.table.run", lang, run=name, missing=joined))
    return lines


def paired_baseline(spec: RunSpec, url: str) -> RunSpec:
    """`spec` with the tokens/s of the same request on a plain server (`url`) as its baseline.

    The plain run goes first (same prompt, temperature, seed and token budget; the baseline
    server's first model). A server that drafts is refused: it is no plain baseline.
    """
    from dataclasses import replace

    from specview.backends.remote.options import remote_options
    from specview.kernel.errors import CliError
    from specview.kernel.events import Basis

    if spec.kind != "openai":
        raise CliError("liveerr.baseline_remote")
    own = remote_options(spec)
    plain = bench_one(replace(spec, gamma=None, options=replace(own, url=url, model=None, baseline_tps=None)),
                      None).stats
    if plain["drafted"]:
        raise CliError("liveerr.baseline_drafted", url=url, drafted=plain["drafted"])
    tps = plain["tokens_per_second"]
    if not tps:
        raise CliError("liveerr.baseline_short", url=url)
    return replace(spec, options=replace(own, baseline_tps=float(tps), baseline_basis=Basis.PAIRED))


def run_bench(args: argparse.Namespace) -> int:
    from specview.boundary.jsonio import dumps
    from specview.kernel.langs import DEFAULT_LANG

    if args.suite:
        from specview.features.live.bench_suite import run_suite

        return run_suite(args)
    if args.vs:
        from specview.kernel.errors import CliError

        raise CliError("suite.err.vs_alone")
    specs = specs_from_args(args, speed=0.0, max_rounds=args.rounds)
    if args.record and len(specs) > 1:
        from specview.cli.errors import CliError

        raise CliError("liveerr.record_one")
    if args.record:
        from specview.features.record.recorder import check_record_path

        check_record_path(args.record, force=args.force)
    warn_notice(specs_key_notice(specs, args.lang or DEFAULT_LANG, [args.baseline_url]))
    if args.baseline_url:
        specs = [paired_baseline(spec, args.baseline_url) for spec in specs]
    results = []
    for spec in specs:
        result = bench_one(spec, args.rounds if spec.kind == "sim" else None, args.record)
        results.append(result)
        if args.json:
            print(dumps(result.stats), flush=True)
    if args.table or not args.json:
        for line in table_lines([r.reading for r in results], specs, args.lang or DEFAULT_LANG):
            print(line)
        from specview.report.sentences import what_if_lines

        for spec, result in zip(specs, results, strict=True):
            if result.what_if is not None:
                for line in what_if_lines(result.what_if, spec.temperature, args.lang or DEFAULT_LANG):
                    print(line)
        for line in missing_lines([r.reading for r in results], args.lang or DEFAULT_LANG):
            print(line)
    return 0


def register(sub: SubParsers, selectors: Parser) -> None:
    bench = sub.add_parser("bench", parents=[selectors], help="cli_help.bench.help")
    bench.add_argument("selectors", nargs="*", metavar="SELECTOR", help="cli_help.bench.selectors")
    bench.add_argument("--rounds", type=int_in(1, 10_000_000, "--rounds"), default=2000, metavar="N",
                       help="cli_help.bench.rounds")
    bench.add_argument("--json", action="store_true", help="cli_help.bench.json")
    bench.add_argument("--table", action="store_true", help="cli_help.bench.table")
    bench.add_argument("--record", metavar="FILE", default=argparse.SUPPRESS, help="cli_help.bench.record")
    bench.add_argument("--force", action="store_true", default=argparse.SUPPRESS,
                       help="cli_help.record_force")
    bench.add_argument("--baseline-url", metavar="URL",
                       help="cli_help.bench.baseline_url")
    bench.add_argument("--suite", nargs="?", const="default", metavar="NAME|FILE", help="suite.help.suite")
    bench.add_argument("--vs", metavar="OPTIONS", help="suite.help.vs")
    bench.set_defaults(run=run_bench)
