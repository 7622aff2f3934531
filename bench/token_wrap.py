"""Is wrapping a token linear in its length? And what does a huge token cost the stream view?

A hostile server may send one "token" of hundreds of kilobytes. Two numbers, each a ratio of
times measured in the same run (so a busy machine slows both sides alike):

  wrap     — TokenLayout placing one token of N characters, for N and 10·N. Linear wrapping
             gives a ratio near 10; the old quadratic one gave about 100 (a 300 kB token froze
             the UI for 14 s).
  shown    — appending that token as the view does (sanitised, cut to MAX_TOKEN_SHOWN with a
             mark) against appending N/10 one-character tokens: bounded whatever N is.

Usage: .venv/bin/python bench/token_wrap.py [--size 30000] [--reps 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specview.kernel.events import TokenEvent, TokenStatus  # noqa: E402
from specview.widgets.token_layout import TokenLayout  # noqa: E402


def best_of(reps: int, work: Callable[[], None]) -> float:
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=30_000, help="characters of the smaller token")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    n = args.size

    def place(size: int) -> Callable[[], None]:
        return lambda: TokenLayout(80)._place(0, "x" * size)

    small, large = best_of(args.reps, place(n)), best_of(args.reps, place(10 * n))
    huge = TokenEvent(None, "y" * (10 * n), TokenStatus.PLAIN)
    tiny = [TokenEvent(None, "y", TokenStatus.PLAIN)] * n
    shown_huge = best_of(args.reps, lambda: TokenLayout(80).append([huge]))
    shown_tiny = best_of(args.reps, lambda: TokenLayout(80).append(tiny))
    result = {
        "size": n,
        "wrap_s": {"n": round(small, 5), "10n": round(large, 5)},
        "wrap_ratio_10n_over_n": round(large / small, 2),
        "append_huge_token_s": round(shown_huge, 5),
        "append_n_tiny_tokens_s": round(shown_tiny, 5),
        "huge_over_tiny": round(shown_huge / shown_tiny, 3),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"wrap one token of {n} and {10 * n} characters: {small * 1e3:.1f} ms and {large * 1e3:.1f} ms "
          f"(ratio {large / small:.1f}; linear ≈ 10, quadratic ≈ 100)")
    print(f"append one {10 * n}-character token as the view does: {shown_huge * 1e3:.2f} ms; "
          f"{n} one-character tokens: {shown_tiny * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
