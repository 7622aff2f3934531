"""`specview bench`: run headless through the same Session and print the stats objects."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from specview.backends.spec import RunSpec
from specview.core.text import number

if TYPE_CHECKING:
    from specview.core.config import Config


def spec_from_args(args: argparse.Namespace, *, speed: float = 1.0, max_rounds: int | None = None,
                   config: Config | None = None) -> RunSpec:
    """The RunSpec the selector options describe (config-file defaults fill what is not given)."""
    from specview.core.config import load_config

    config = config or load_config()
    return RunSpec(
        preset=args.preset or config.preset,
        prompt=args.prompt,
        gamma=args.gamma,
        temperature=args.temperature,
        seed=args.seed,
        lang=args.lang,
        speed=speed,
        max_rounds=max_rounds,
        target=args.target,
        draft=args.draft,
        demo=args.demo,
        gpu_layers=args.gpu_layers,
        no_spec=args.no_spec,
        adaptive=args.adaptive,
        max_tokens=args.max_tokens,
        url=args.url,
        model=args.model,
        api_key_env=args.api_key_env or config.api_key_env,
        server=None if args.server in (None, "auto") else args.server,
        raw=args.raw,
        read_timeout=args.read_timeout,
    )


def specs_from_args(args: argparse.Namespace, *, speed: float, max_rounds: int | None,
                    config: Config | None = None) -> list[RunSpec]:
    """One RunSpec per positional selector, or the single one the options describe."""
    from specview.backends.selector import parse_selector

    base = spec_from_args(args, speed=speed, max_rounds=max_rounds, config=config)
    selectors = getattr(args, "selectors", None) or []
    return [parse_selector(s, base) for s in selectors] or [base]


def bench_one(spec: RunSpec, rounds: int | None, record: str | None = None) -> dict[str, Any]:
    """Run one spec headless to the end and return its stats object."""
    from specview.backends.factory import make_backend
    from specview.core.report import stats_dict
    from specview.core.session import Session

    backend = make_backend(spec)
    session = Session(backend)
    if record:
        from specview.backends.record import start_recording

        start_recording(session, record, spec)
    pieces = [rnd.text for rnd in session.run_headless(rounds)]
    return stats_dict(backend.info, session.metrics.snapshot(), "".join(pieces))


TABLE_COLUMNS = (("run", 18), ("γ", 3), ("T", 4), ("rounds", 7), ("α", 6), ("τ", 6), ("theory τ", 9),
                 ("tok/s", 8), ("c", 6))


def print_table(results: list[dict[str, Any]]) -> None:
    """A fixed-width table for people."""
    print("  ".join(f"{name:>{w}}" for name, w in TABLE_COLUMNS))
    for r in results:
        label = r.get("preset") or r.get("model") or r["backend"]
        row = [label[:18], number(r["gamma"]), number(r["temperature"], "g"), number(r["rounds"]),
               number(r["acceptance_rate"], ".3f"), number(r["tau"], ".3f"), number(r["expected_tau"], ".3f"),
               number(r["tokens_per_second"], ".1f"), number(r["draft_cost"], ".3f")]
        print("  ".join(f"{v:>{w}}" for v, (_, w) in zip(row, TABLE_COLUMNS, strict=True)))


def run_bench(args: argparse.Namespace) -> int:
    specs = specs_from_args(args, speed=0.0, max_rounds=args.rounds)
    if args.record and len(specs) > 1:
        from specview.cli.errors import CliError

        raise CliError("--record takes one run; give one selector")
    results = []
    for spec in specs:
        result = bench_one(spec, args.rounds if spec.kind == "sim" else None, args.record)
        results.append(result)
        if args.json:
            print(json.dumps(result, ensure_ascii=False), flush=True)
    if args.table or not args.json:
        print_table(results)
    return 0
