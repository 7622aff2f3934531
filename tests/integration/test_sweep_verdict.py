"""`sweep load` against real llama-servers (Gemma 3 270M): --on must draft, --off must not, and the
verdict comes with its spread and the server's own counts (issue 25 item 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.llama_server import NGRAM_ARGS, RunningServer, llama_server, server_binary

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "the cat sat on the mat and the dog ran to the cat " * 3  # n-gram lookup finds drafts in it


@pytest.fixture(scope="module")
def plain_and_ngram() -> Iterator[tuple[RunningServer, RunningServer]]:
    if server_binary() is None:
        pytest.skip("llama-server not built (make llama-server)")
    with llama_server() as plain, llama_server(NGRAM_ARGS) as ngram:
        yield plain, ngram


def sweep(on: RunningServer, off: RunningServer, *extra: str) -> subprocess.CompletedProcess[str]:
    """`python -m specview sweep load` of this worktree's code (not the installed script)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "specview", "sweep", "load", "--on", on.url, "--off", off.url,
                           "--concurrency", "1", "--requests", "1", "--max-tokens", "24", "--prompt", PROMPT, *extra],
                          capture_output=True, text=True, timeout=240, cwd=ROOT, env=env, stdin=subprocess.DEVNULL)


def one_error_line(out: subprocess.CompletedProcess[str]) -> str:
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(lines) == 1 and lines[0].startswith("specview: error: "), out.stderr
    return lines[0]


def test_the_same_plain_server_as_on_and_off_is_refused(plain_and_ngram: tuple[RunningServer, RunningServer]) -> None:
    plain, _ = plain_and_ngram
    line = one_error_line(sweep(plain, plain, "--repeats", "2", "--json"))
    assert f"the --on server {plain.root} drafted nothing" in line and "does not speculate" in line


def test_a_drafting_server_as_off_is_refused(plain_and_ngram: tuple[RunningServer, RunningServer]) -> None:
    _, ngram = plain_and_ngram
    line = one_error_line(sweep(ngram, ngram, "--repeats", "2", "--json"))
    assert f"the --off server {ngram.root} drafted" in line and "no plain baseline" in line


def test_an_on_off_pair_shows_the_spread_and_the_servers_counts(
        plain_and_ngram: tuple[RunningServer, RunningServer]) -> None:
    plain, ngram = plain_and_ngram
    out = sweep(ngram, plain, "--repeats", "3", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["repeats"] == 3 and not data["notes"]
    point = data["points"][0]
    assert len(point["on_samples"]) == len(point["off_samples"]) == 3 and point["requests"] == 3
    assert point["on_drafted"] > 0 and 0 <= point["on_accepted"] <= point["on_drafted"]
    assert point["off_drafted"] == 0 and point["off_accepted"] == 0
    verdict = point["verdict"]
    on_lo, on_hi = verdict["a"]["interval"]
    off_lo, off_hi = verdict["b"]["interval"]
    expected = "above" if on_lo > off_hi else "below" if on_hi < off_lo else "within_noise"
    assert verdict["outcome"] == expected  # what the intervals say, whichever way this machine's load fell
    assert (data["crossover"] is None) == (expected == "above")
