"""/metrics parsing on hostile text: specview's filtered parse vs prometheus-client on the whole text.

prometheus-client's parser is pure Python (~1 µs a character, ~4 µs in escaped labels) and
quadratic in a long label's escapes. specview hands it only the lines of the families it reads,
at most 64 K characters of them, and skips (and counts) a line over 2048 bytes. This times both
on: a real-looking vLLM scrape, a 1 MB escaped label, an 8 MiB hostile scrape, and the worst
cases for the filtered parse (8 MiB of short counter lines; of escaped labels just under the
line limit). The whole-text parse runs in a child process with a time limit (`--limit`,
default 60 s): it is what a poll cost before.

Usage: .venv/bin/python bench/metrics_parse.py [--limit 60] [--no-baseline] [--json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specview.backends.remote.metrics import draft_counters, read_samples, spec_family  # noqa: E402

ESCAPED = '\\"'  # an escaped quote: the parser re-scans the label before each one
MIB = 2**20


def vllm_scrape() -> str:
    """Speculative counters for 4 engines and 4 positions, and a few histograms (not read)."""
    lines = []
    for engine in range(4):
        labels = f'engine="{engine}",model_name="Qwen/Qwen3-8B"'
        lines += [f"vllm:spec_decode_num_drafts_total{{{labels}}} 1000.0",
                  f"vllm:spec_decode_num_draft_tokens_total{{{labels}}} 4000.0",
                  f"vllm:spec_decode_num_accepted_tokens_total{{{labels}}} 2500.0"]
        lines += [f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{labels},position="{k}"}} {900 - 200 * k}.0'
                  for k in range(4)]
        for name in ("time_to_first_token_seconds", "inter_token_latency_seconds", "e2e_request_latency_seconds"):
            lines += [f'vllm:{name}_bucket{{{labels},le="{2 ** k / 1000}"}} {k}.0' for k in range(30)]
    return "\n".join(lines) + "\n"


def one_label(size: int) -> str:
    """One counter line whose label holds `size` bytes of escaped quotes."""
    return f'vllm:spec_decode_num_drafts_total{{engine="{ESCAPED * (size // 2)}"}} 1\n'


def hostile_scrape(size: int = 8 * MIB - 4096) -> str:
    """`size` bytes: a 1 MiB escaped label in each of two families read and one not read, then
    lines of 8 KiB escaped labels in a family read until the size is reached."""
    parts = [vllm_scrape()]
    for family in ("vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_accepted_tokens_per_pos_total",
                   "vllm:request_params_n_bucket"):
        parts.append(f'{family}{{engine="{ESCAPED * (MIB // 2)}"}} 1\n')
    used = sum(map(len, parts))
    line = f'vllm:spec_decode_num_draft_tokens_total{{engine="{ESCAPED * 4096}"}} 1\n'
    parts.append(line * ((size - used) // len(line)))
    return "".join(parts)


def short_lines(size: int = 8 * MIB - 4096) -> str:
    """`size` bytes of ordinary counter lines, one engine each."""
    lines, used, engine = [], 0, 0
    while used < size:
        line = f'vllm:spec_decode_num_drafts_total{{engine="{engine}"}} 1\n'
        lines.append(line)
        used += len(line)
        engine += 1
    return "".join(lines)


def escaped_lines(size: int = 8 * MIB - 4096) -> str:
    """`size` bytes of counter lines just under the line limit, their labels all escaped quotes."""
    line = one_label(2000)
    return line * (size // len(line))


def specview_parse(text: str, repeats: int = 5) -> tuple[float, dict[str, int]]:
    """The fastest of `repeats` polls' parses (the machine's other load only adds), and what was skipped."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        samples = read_samples(text, (spec_family("vllm"),))
        draft_counters(samples, "vllm")
        best = min(best, time.perf_counter() - started)
    return best, {"long_lines": samples.long_lines, "extra_lines": samples.extra_lines}


def _whole(text: str, out: multiprocessing.Queue[float]) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    started = time.perf_counter()
    for family in text_string_to_metric_families(text):
        list(family.samples)
    out.put(time.perf_counter() - started)


def whole_parse(text: str, limit: float) -> float | None:
    """Seconds prometheus-client takes on the whole text, or None past `limit`."""
    out: multiprocessing.Queue[float] = multiprocessing.Queue()
    child = multiprocessing.Process(target=_whole, args=(text, out))
    child.start()
    child.join(limit)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    return out.get() if not out.empty() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=60.0, help="seconds the whole-text parse may take")
    parser.add_argument("--no-baseline", action="store_true", help="time specview's parse only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    read_samples("", ())  # the parser's import is not part of a poll
    cases = {"vllm scrape": vllm_scrape(), "1 MB escaped label": one_label(10**6),
             "8 MiB hostile scrape": hostile_scrape(), "8 MiB short lines": short_lines(),
             "8 MiB 2 KB escaped": escaped_lines()}
    results = []
    for name, text in cases.items():
        seconds, skipped = specview_parse(text)
        before = None if args.no_baseline else whole_parse(text, args.limit)
        results.append({"case": name, "bytes": len(text.encode()), "specview_s": round(seconds, 4),
                        "whole_text_s": None if before is None else round(before, 3), **skipped})
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for r in results:
        whole = "—" if args.no_baseline else (f"{r['whole_text_s']:.3f} s" if r["whole_text_s"] is not None
                                               else f"> {args.limit:g} s")
        print(f"{r['case']:<21} {r['bytes']:>9} B  specview {r['specview_s']:.4f} s  whole text {whole}  "
              f"skipped {r['long_lines']} long, {r['extra_lines']} beyond")


if __name__ == "__main__":
    main()
