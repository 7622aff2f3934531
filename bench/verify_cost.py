"""What verifying costs here, and what that does to the speedup (Gemma 3 270M on this machine).

For each drafter (the demo's n-gram prompt lookup, and the target drafting for itself) one
run through the same Session the UI uses; printed per run: the verify-cost curve (seconds per
k-token forward, k = 1 … γ+1, the run's calibrations averaged), v(γ), the measured speedup
against plain decoding (tokens/s ÷ plain tokens/s, both measured in this run), the theory
τ / (γc + v) from the run's α, c and v, and the old formula tokens/s × mean verify time —
which takes verifying to cost one forward and so claims gains a compute-bound CPU does not have.

Usage: .venv/bin/python bench/verify_cost.py [--gamma 4] [--max-tokens 160] [--threads 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specview.backends.local.backend import LlamaBackend  # noqa: E402
from specview.backends.local.demo import demo_model_path, demo_prompt  # noqa: E402
from specview.backends.local.options import LlamaOptions  # noqa: E402
from specview.kernel.overlay import overlay  # noqa: E402
from specview.kernel.session import Session  # noqa: E402


def run(draft: str, gamma: int, max_tokens: int, threads: int) -> dict[str, Any]:
    path = demo_model_path()
    backend = LlamaBackend(path, LlamaOptions(draft=str(path) if draft == "self" else draft, prompt=demo_prompt(),
                                              gamma=gamma, max_tokens=max_tokens, n_threads=threads))
    session = Session(backend)
    list(session.run_headless())
    snap = session.metrics.snapshot()
    over = overlay(snap)
    cal = snap.calibration
    old = snap.tokens_per_second * snap.mean_verify_s if snap.tokens_per_second and snap.mean_verify_s else None
    return {
        "draft": draft,
        "gamma": gamma,
        "verify_cost_ms": None if cal is None else [round(1e3 * c, 2) for c in cal.verify_costs_s],
        "calibrations": snap.calibrations,
        "verify_ratio": over.verify_ratio,
        "alpha": snap.acceptance_rate,
        "tau": snap.tau,
        "c": snap.draft_cost,
        "tokens_per_second": snap.tokens_per_second,
        "plain_tokens_per_second": over.plain_tokens_per_second,
        "speedup_measured": over.speedup_measured,
        "speedup_theory": over.speedup_theory,
        "speedup_old_formula": old,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gamma", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for draft in ("ngram", "self"):
        row = run(draft, args.gamma, args.max_tokens, args.threads)
        if args.json:
            print(json.dumps(row))
            continue
        costs = row["verify_cost_ms"] or []
        print(f"{draft:>6}  verify ms by k: {' '.join(f'{c:.0f}' for c in costs)}  v(γ) {row['verify_ratio']:.2f}  "
              f"α {row['alpha']:.2f}  τ {row['tau']:.2f}  c {row['c']:.3f}")
        print(f"{'':>6}  speedup measured {row['speedup_measured']:.2f}×  theory {row['speedup_theory']:.2f}×  "
              f"old formula {row['speedup_old_formula']:.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
