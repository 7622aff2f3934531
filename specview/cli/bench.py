"""`specview bench`: run headless through the same Session and print the stats object."""

from __future__ import annotations

import argparse
import json

from specview.backends.spec import RunSpec


def spec_from_args(args: argparse.Namespace, *, speed: float = 1.0, max_rounds: int | None = None) -> RunSpec:
    """The RunSpec the selector options describe."""
    return RunSpec(
        preset=args.preset,
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
        api_key_env=args.api_key_env,
        server=None if args.server in (None, "auto") else args.server,
        raw=args.raw,
    )


def run_bench(args: argparse.Namespace) -> int:
    from specview.backends.factory import make_backend
    from specview.core.report import stats_dict
    from specview.core.session import Session

    spec = spec_from_args(args, speed=0.0, max_rounds=args.rounds)
    backend = make_backend(spec)
    session = Session(backend)
    pieces = [rnd.text for rnd in session.run_headless(args.rounds)]
    stats = stats_dict(backend.info, session.metrics.snapshot(), "".join(pieces))
    if args.json:
        print(json.dumps(stats, ensure_ascii=False))
    else:
        for key, value in stats.items():
            if key != "text":
                print(f"{key:>24}  {value}")
    return 0
