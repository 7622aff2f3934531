"""Loaded models are shared (backends/local/pool.py): `diff` loads its target once for both runs and
the replay, `sweep gamma` loads each model once for the whole sweep; counted by the pool's own
load counter, on real llama.cpp loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")

from specview.backends.local.pool import POOL
from specview.backends.local.run_options import LlamaRunOptions
from specview.cli import main
from specview.features.sweep.runner import gamma_points
from specview.kernel.runspec import RunSpec
from tests.support.gguf_factory import write_tiny_llama

PROMPT = "the cat sat on the mat and the dog ran to the cat " * 3


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_llama(tmp_path_factory.mktemp("loads") / "t.gguf")


def test_a_three_gamma_sweep_loads_the_model_once(target: Path) -> None:
    before = POOL.loads
    base = RunSpec(temperature=0.0, max_tokens=24, prompt=PROMPT, speed=0.0,
                   options=LlamaRunOptions(target=str(target), draft="ngram"))
    points, _ = gamma_points(base, [1, 2, 3], plain=True)
    assert [p.gamma for p in points] == [0, 1, 2, 3] and all(p.tokens == 24 for p in points)
    assert POOL.loads - before == 1, "plain and γ 1, 2, 3 share one load of the target"
    assert POOL.held == 0, "the sweep frees its models when it ends"


def test_a_sweep_with_a_model_draft_loads_each_file_once(target: Path, tmp_path: Path) -> None:
    draft = write_tiny_llama(tmp_path / "d.gguf", noise=0.05)
    before = POOL.loads
    base = RunSpec(temperature=0.0, max_tokens=16, prompt=PROMPT, speed=0.0,
                   options=LlamaRunOptions(target=str(target), draft=str(draft)))
    gamma_points(base, [1, 2, 3], plain=False)
    assert POOL.loads - before == 2 and POOL.held == 0


@pytest.mark.parametrize("draft", ["ngram", "self"])
def test_diff_loads_the_target_once(target: Path, draft: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = POOL.loads
    code = main(["diff", "--target", str(target), "--draft", str(target) if draft == "self" else draft,
                 "--gamma", "3", "--max-tokens", "24", "--prompt", PROMPT, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["identical"] and data["cause"]["kind"] == "exact"
    assert POOL.loads - before == 1, "plain, speculative (and a draft that is the target) share one model"
    assert POOL.held == 0
