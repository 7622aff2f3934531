"""What the process boundary costs the local engine: tokens/s in a child vs in process (issue 34).

The same run (Gemma 3 270M, n-gram drafts, greedy, fixed seed) is decoded alternately by
`LlamaBackend` in this process and by `EngineProcess` (llama.cpp in a child, rounds through a
pipe), REPEATS times each; tokens/s counts emitted tokens over the wall time of the rounds
(model loading excluded: both load before the clock starts). Goal: the medians within 2 %.

    .venv/bin/python bench/engine_process.py [--max-tokens 256] [--repeats 5] [--threads N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specview.backends.local.engine_host import ENGINE_CHILD_ENV  # noqa: E402
from specview.backends.local.run_options import LlamaRunOptions  # noqa: E402
from specview.kernel.backend import Backend  # noqa: E402
from specview.kernel.events import Round  # noqa: E402
from specview.kernel.runspec import RunSpec  # noqa: E402


def tokens_per_second(backend: Backend) -> float:
    began = time.perf_counter()
    tokens = sum(len([t for t in r.tokens if t.emitted]) for r in backend.rounds(threading.Event())
                 if isinstance(r, Round))
    return tokens / (time.perf_counter() - began)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--target", default=None, help="a GGUF (default: the demo's Gemma 3 270M)")
    ap.add_argument("--gpu-layers", type=int, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    spec = RunSpec(max_tokens=args.max_tokens,
                   options=LlamaRunOptions(demo=args.target is None, target=args.target, threads=args.threads,
                                           gpu_layers=args.gpu_layers, draft="ngram"))
    os.environ.pop(ENGINE_CHILD_ENV, None)
    from specview.backends.local.backend import make_llama_backend
    from specview.backends.local.engine_process import EngineProcess

    child = EngineProcess(spec)
    here = make_llama_backend(spec)  # this process: the factory would pick the child
    found: dict[str, list[float]] = {"in_process": [], "child": []}
    try:
        tokens_per_second(here)  # warm both (first-touch pages, the first calibration)
        tokens_per_second(child)
        for _ in range(args.repeats):
            found["in_process"].append(tokens_per_second(here))
            found["child"].append(tokens_per_second(child))
    finally:
        here.close()
        child.close()
    medians = {name: statistics.median(values) for name, values in found.items()}
    apart = abs(medians["child"] - medians["in_process"]) / medians["in_process"]
    result = {"tokens_per_second": found, "median": medians, "apart": round(apart, 4),
              "goal": 0.02, "met": apart <= 0.02, "max_tokens": args.max_tokens}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"in process {medians['in_process']:.1f} tok/s · child {medians['child']:.1f} tok/s · "
              f"apart {apart * 100:.2f} % (goal ≤ 2 %: {'met' if result['met'] else 'not met'})")
        print("  in process:", " ".join(f"{v:.1f}" for v in found["in_process"]))
        print("  child:     ", " ".join(f"{v:.1f}" for v in found["child"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
