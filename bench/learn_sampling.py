"""Screen 6's sampling check: vectorised draws vs one `verify_sampling` call per round, same run.

The Learn screen draws 100,000 one-draft rounds and runs a χ² test against p; the goal is about
a second on a laptop. This prints both rates and their ratio (measured in the same process, so
machine load affects both alike).

Usage: .venv/bin/python bench/learn_sampling.py [--draws 100000] [--loop 5000] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from specview.features.learn.explain.coupling import TARGET_P, draft_between, sample_check  # noqa: E402
from specview.kernel.sampling import verify_sampling  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100_000)
    parser.add_argument("--loop", type=int, default=5_000, help="rounds timed through verify_sampling")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    q = draft_between(0.5)
    t0 = time.perf_counter()
    check = sample_check(TARGET_P, q, args.draws)
    vectorised_s = time.perf_counter() - t0
    p, qa = np.array(TARGET_P), np.array(q)
    rows, rng = np.vstack([p, p]), np.random.default_rng(0)
    t0 = time.perf_counter()
    for _ in range(args.loop):
        verify_sampling(rows, qa[None, :], [int(rng.choice(len(qa), p=qa))], rng)
    loop_s = time.perf_counter() - t0
    out = {
        "draws": args.draws,
        "vectorised_s": vectorised_s,
        "vectorised_per_s": args.draws / vectorised_s,
        "loop_per_s": args.loop / loop_s,
        "ratio": (args.draws / vectorised_s) / (args.loop / loop_s),
        "chi_square_passes": check["passes"],
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{args.draws:,} draws + χ² in {vectorised_s * 1e3:.0f} ms ({out['vectorised_per_s']:,.0f}/s); "
              f"one verify_sampling call per round: {out['loop_per_s']:,.0f}/s; ratio {out['ratio']:.0f}×")


if __name__ == "__main__":
    main()
