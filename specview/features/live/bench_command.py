"""`specview bench`: run headless through the same Session and print the stats objects."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from specview.cli.argtypes import Parser, SubParsers, int_in
from specview.cli.errors import warn
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
    from specview.kernel.run_json import stats_dict
    from specview.kernel.session import Session

    backend = make_backend(spec)
    session = Session(backend)
    if record:
        from specview.features.record.recorder import start_recording

        start_recording(session, record, spec)
    from specview.kernel.what_if import WhatIf

    done = list(session.run_headless(rounds))
    snap = session.metrics.snapshot()
    chain = spec.kind == "llama" and spec.tree is None and not spec.plain
    return BenchResult(stats_dict(backend.info, snap, "".join(rnd.text for rnd in done)),
                       Reading.of(snap, backend.info), WhatIf.of(done) if chain else None)


def what_if_lines(what_if: WhatIf, temperature: float | None, lang: str) -> list[str]:
    """The what-if line of a chain run (and, at T > 0, what its count means)."""
    from specview.texts.catalog import fill, text

    if not what_if.rejected:
        return [text("tree.what_if_none", lang)]
    share = f"{what_if.width3 / what_if.rejected:.0%}"
    line = fill("tree.what_if", lang, rejected=what_if.rejected, rank2=what_if.rank2, rank3=what_if.rank3,
                width2=what_if.width2, width3=what_if.width3, share3=share)
    return [line, text("tree.what_if_sampled", lang)] if temperature else [line]


RUN_WIDTH = 18


def table_lines(readings: list[Reading], lang: str) -> list[str]:
    """A fixed-width table for people: the run, then the gauge table's bench columns."""
    from specview.boundary.text import sanitize
    from specview.cli.table import right_aligned
    from specview.kernel.gauges import BENCH, gauges
    from specview.texts.catalog import text

    specs = gauges(BENCH)
    headers = [text("summary.run", lang), *(text(spec.short_id, lang) for spec in specs)]
    rows = [[sanitize(r.info.preset or r.info.model or r.info.backend, RUN_WIDTH, one_line=True)[:RUN_WIDTH],
             *(spec.formatted(r, windowed=False) for spec in specs)] for r in readings]
    return right_aligned([headers, *rows], RUN_WIDTH)


def paired_baseline(spec: RunSpec, url: str) -> RunSpec:
    """`spec` with the tokens/s of the same request on a plain server (`url`) as its baseline.

    The plain run goes first (same prompt, temperature, seed and token budget; the baseline
    server's first model). A server that drafts is refused: it is no plain baseline.
    """
    from dataclasses import replace

    from specview.kernel.errors import CliError
    from specview.kernel.events import Basis

    if spec.kind != "openai":
        raise CliError("featerr.live.baseline_remote")
    plain = bench_one(replace(spec, url=url, model=None, baseline_tps=None, gamma=None), None).stats
    if plain["drafted"]:
        raise CliError("featerr.live.baseline_drafted", url=url, drafted=plain["drafted"])
    tps = plain["tokens_per_second"]
    if not tps:
        raise CliError("featerr.live.baseline_short", url=url)
    return replace(spec, baseline_tps=float(tps), baseline_basis=Basis.PAIRED)


def run_bench(args: argparse.Namespace) -> int:
    from specview.boundary.jsonio import dumps
    from specview.catalog.presets import load_presets
    from specview.kernel.langs import DEFAULT_LANG
    from specview.texts.catalog import Phrase

    problems: list[Phrase] = []
    load_presets(problems=problems)
    for problem in problems:
        warn(problem.render(getattr(args, "lang", None) or DEFAULT_LANG))
    specs = specs_from_args(args, speed=0.0, max_rounds=args.rounds)
    if args.record and len(specs) > 1:
        from specview.cli.errors import CliError

        raise CliError("featerr.live.record_one")
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
        for line in table_lines([r.reading for r in results], args.lang or DEFAULT_LANG):
            print(line)
        for spec, result in zip(specs, results, strict=True):
            if result.what_if is not None:
                for line in what_if_lines(result.what_if, spec.temperature, args.lang or DEFAULT_LANG):
                    print(line)
    return 0


def register(sub: SubParsers, selectors: Parser) -> None:
    bench = sub.add_parser("bench", parents=[selectors], help="run headless and print statistics")
    bench.add_argument("selectors", nargs="*", metavar="SELECTOR",
                       help="presets or backend specs to run one after another (see `compare`)")
    bench.add_argument("--rounds", type=int_in(1, 10_000_000, "--rounds"), default=2000, metavar="N",
                       help="rounds to simulate (default: 2000)")
    bench.add_argument("--json", action="store_true", help="print one JSON object per run")
    bench.add_argument("--table", action="store_true", help="print a table for people")
    bench.add_argument("--record", metavar="FILE", default=argparse.SUPPRESS, help="record the run as JSON Lines")
    bench.add_argument("--force", action="store_true", default=argparse.SUPPRESS,
                       help="let --record replace an existing file (never through a link)")
    bench.add_argument("--baseline-url", metavar="URL",
                       help="a server running the same model without speculation: its tokens/s for the same "
                            "request is the --url run's speedup baseline")
    bench.set_defaults(run=run_bench)
