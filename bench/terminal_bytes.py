"""Bytes per second the live view writes to its terminal (issue 13: slow links, SSH).

The real `specview` runs on a pseudo-terminal (xterm-256color, truecolor) with the simulator
paced to TOKENS_PER_S (default 100 tokens/s); after a warm-up, every byte it writes during
DURATION seconds is counted. Each terminal size runs at the default pump rate and at
`--fps 5`. Targets: ≤ 30 KB/s at the default rate, ≤ 10 KB/s at --fps 5.

    .venv/bin/python bench/terminal_bytes.py [--duration 10] [--preset qwen3.6-mtp] [--json]
    .venv/bin/python bench/terminal_bytes.py --sizes 80x24 --rates default   # one case
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.pty_run import pty_process  # noqa: E402

SPECVIEW = Path(sys.executable).parent / "specview"
TARGETS_KB = {"default": 30.0, "5": 10.0}


def preset_rate(preset: str) -> float:
    """Tokens per second the preset streams at --speed 1 (from a headless run of the same simulator)."""
    done = subprocess.run([str(SPECVIEW), "bench", "--preset", preset, "--rounds", "3000", "--json"],
                          capture_output=True, text=True, check=True, env=_env())
    return float(json.loads(done.stdout)["tokens_per_second"])


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), "TERM": "xterm-256color",
           "COLORTERM": "truecolor", "SPECVIEW_CONFIG": "/nonexistent/specview-bench.toml",
           "TEXTUAL_ANIMATIONS": "none", "LANG": "C.UTF-8"}
    return {**env, **(extra or {})}


def measure(preset: str, speed: float, size: tuple[int, int], fps: str, duration: float, warmup: float,
            ssh: bool, full: bool = False) -> dict[str, object]:
    """One run: bytes/s written after the warm-up (`full`: without the screen diff, as Textual writes)."""
    argv = [str(SPECVIEW), "--preset", preset, "--speed", f"{speed:.4f}"]
    if fps != "default":
        argv += ["--fps", fps]
    extra = {"SSH_CONNECTION": "127.0.0.1 50000 127.0.0.1 22"} if ssh else {}
    if full:
        extra["SPECVIEW_SCREEN_DIFF"] = "0"
    with pty_process(argv, _env(extra), cols=size[0], rows=size[1]) as app:
        app.wait_for(lambda out: "running" in out, timeout=60, what="the first frame")
        start = time.monotonic() + warmup
        time.sleep(warmup + duration)
        written = app.bytes_between(start, start + duration)
        app.write(b"q")
        app.wait_exit()
    rate = written / duration
    return {"size": f"{size[0]}x{size[1]}", "fps": fps, "ssh": ssh, "screen_diff": not full,
            "bytes_per_s": round(rate),
            "kb_per_s": round(rate / 1000, 2), "kib_per_s": round(rate / 1024, 2),
            "target_kb_per_s": TARGETS_KB.get(fps)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="qwen3.6-mtp")
    parser.add_argument("--tokens-per-s", type=float, default=100.0, help="simulator pace (default: 100)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds counted per case (default: 10)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before counting (default: 3)")
    parser.add_argument("--sizes", default="80x24,130x36")
    parser.add_argument("--rates", default="default,5", help="pump rates: default and/or --fps values")
    parser.add_argument("--ssh", action="store_true", help="also run each case with SSH_CONNECTION set")
    parser.add_argument("--full", action="store_true",
                        help="also run each case without the screen diff (SPECVIEW_SCREEN_DIFF=0): the ratio")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    base = preset_rate(args.preset)
    speed = args.tokens_per_s / base
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    cases = []
    for size in sizes:
        for fps in args.rates.split(","):
            for ssh in (False, True) if args.ssh else (False,):
                result = measure(args.preset, speed, (size[0], size[1]), fps, args.duration, args.warmup, ssh)
                cases.append(result)
                whole = None
                if args.full:
                    whole = measure(args.preset, speed, (size[0], size[1]), fps, args.duration, args.warmup, ssh,
                                    full=True)
                    cases.append(whole)
                if not args.json:
                    target = result["target_kb_per_s"]
                    verdict = "" if target is None else ("  ok" if float(result["kb_per_s"]) <= float(target)
                                                         else f"  over the {target:g} KB/s target")
                    ratio = "" if whole is None else (f"  (without the diff {whole['kb_per_s']:.2f} KB/s: "
                                                      f"{float(whole['kb_per_s']) / float(result['kb_per_s']):.1f}×)")
                    print(f"{result['size']:>7}  fps {fps:<8} {'ssh ' if ssh else ''}"
                          f"{result['kb_per_s']:8.2f} KB/s ({result['kib_per_s']:.2f} KiB/s){verdict}{ratio}",
                          flush=True)
    report = {"preset": args.preset, "tokens_per_s": args.tokens_per_s, "speed": round(speed, 4),
              "duration_s": args.duration, "cores": os.cpu_count(), "cases": cases}
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
