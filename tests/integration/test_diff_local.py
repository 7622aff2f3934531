"""`specview diff` on real llama.cpp: greedy speculation reproduces plain decoding, and a
speculative path that accepts one wrong draft (a test double), or another model, is caught at
that token and reported as a defect (not kernel numerics) by the replay of its own batches."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")

from specview.backends.factory import make_backend
from specview.backends.local.model import ModelRunner
from specview.backends.local.replay import VerifyBatch
from specview.backends.local.run_options import LlamaRunOptions
from specview.cli import main
from specview.features.diff.command import describe
from specview.features.diff.model import DEFECT, NEAR_TIE
from specview.features.diff.runner import compare_backends
from specview.kernel.backend import Backend, BackendInfo
from specview.kernel.events import Calibration, Round, StreamItem, TokenStatus
from specview.kernel.runspec import RunSpec
from tests.support.gguf_factory import write_tiny_llama

PROMPT = "the cat sat on the mat and the dog ran to the cat " * 2


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_llama(tmp_path_factory.mktemp("diff") / "t.gguf")


def test_greedy_speculation_is_identical_to_plain(target: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for draft in ("ngram", str(target)):
        code = main(["diff", "--target", str(target), "--draft", draft, "--gamma", "3", "--max-tokens", "48",
                     "--prompt", PROMPT, "--json"])
        data = json.loads(capsys.readouterr().out)
        assert code == 0 and data["identical"], data
        assert data["compared"] == 48 and data["divergence"] is None and data["cause"]["kind"] == "exact"
    assert main(["diff", "--target", str(target), "--draft", "ngram", "--max-tokens", "8", "--prompt", PROMPT]) == 0
    assert "identical: all 8 tokens match" in capsys.readouterr().out


class PerturbedDraftPath:
    """A test double of a speculative backend whose verifier lets one wrong draft through: the
    accepted token at emitted position `at` is replaced by another id (as a lossy verifier would)."""

    def __init__(self, inner: Backend, at: int) -> None:
        self.inner, self.at = inner, at
        self.hit: tuple[int, int] | None = None  # (round index, replaced id)

    @property
    def info(self) -> BackendInfo:
        return replace(self.inner.info, label="perturbed " + self.inner.info.label)

    def rounds(self, stop: threading.Event) -> Iterator[StreamItem]:
        seen = 0
        for rnd in self.inner.rounds(stop):
            if isinstance(rnd, Calibration):  # what decoding costs: passed on as it is
                yield rnd
                continue
            assert isinstance(rnd, Round)
            tokens = list(rnd.tokens)
            for k, tok in enumerate(tokens):
                if not tok.emitted:
                    continue
                if self.hit is None and seen >= self.at and tok.status is TokenStatus.ACCEPTED:
                    assert tok.token_id is not None
                    wrong = (tok.token_id + 7) % 300 + 3
                    tokens[k] = replace(tok, token_id=wrong, text="?")
                    self.hit = (rnd.index, wrong)
                seen += 1
            yield replace(rnd, tokens=tuple(tokens))

    def close(self) -> None:
        self.inner.close()


def test_a_perturbed_draft_path_is_caught_with_its_round_and_margin(target: Path) -> None:
    base = RunSpec(gamma=4, temperature=0.0, max_tokens=48, prompt=PROMPT,
                   options=LlamaRunOptions(target=str(target), draft=str(target)))
    reference = make_backend(replace(base, plain=True))
    double = PerturbedDraftPath(make_backend(base), at=10)
    result = compare_backends(reference, double)
    assert double.hit is not None, "draft = target: every draft is accepted, so one gets perturbed"
    d = result.divergence
    assert not result.identical and d is not None and not d.by_text
    assert d.index >= 10 and result.compared == d.index
    assert d.candidate is not None and d.candidate.round == double.hit[0] and d.candidate.token_id == double.hit[1]
    assert d.candidate.status == "accepted" and d.reference is not None and d.reference.status == "plain"
    # the target preferred its own token by a clear margin: not a near-tie, a real loss
    assert result.margin is not None and result.margin.margin > NEAR_TIE and not result.margin.near_tie
    assert result.margin.top1_minus_top2 > 0


class PerturbedWithBatches(PerturbedDraftPath):
    """The same lossy path, handing `diff` its real verify batches to replay (as LlamaBackend does)."""

    @property
    def target(self) -> ModelRunner:
        return self.inner.target  # type: ignore[attr-defined, no-any-return]

    @property
    def prompt_tokens(self) -> list[int]:
        return self.inner.prompt_tokens  # type: ignore[attr-defined, no-any-return]

    @property
    def verify_batches(self) -> list[VerifyBatch]:
        return self.inner.verify_batches  # type: ignore[attr-defined, no-any-return]


def test_a_lossy_path_is_a_defect_even_on_its_own_batches(target: Path) -> None:
    base = RunSpec(gamma=4, temperature=0.0, max_tokens=48, prompt=PROMPT,
                   options=LlamaRunOptions(target=str(target), draft=str(target)))
    double = PerturbedWithBatches(make_backend(base), at=10)
    result = compare_backends(make_backend(replace(base, plain=True)), double)
    d, cause = result.divergence, result.cause
    assert d is not None and double.hit is not None
    # the target's greedy on the very batches the path verified does not give the perturbed token
    assert cause is not None and cause.kind == DEFECT and cause.defect_at == d.index
    assert cause.logit_shift is None and cause.batch_width is None
    shown = describe(result, "en")
    assert f"differs too, from token {d.index + 1} on: a defect of the speculative path" in shown
    assert "kernel numerics (batch width" not in shown and "not a near-tie" not in shown
    assert "的缺陷" in describe(result, "zh")


def test_another_model_is_a_defect(target: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = write_tiny_llama(tmp_path / "other.gguf", noise=0.6)
    code = main(["diff", f"llama:{target}", f"llama:{other}+ngram", "--gamma", "3", "--max-tokens", "48",
                 "--prompt", PROMPT, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and not data["identical"], "a model with other weights takes another greedy path"
    assert data["cause"]["kind"] == DEFECT and data["cause"]["defect_at"] == data["divergence"]["index"]
