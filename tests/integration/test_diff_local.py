"""`specview diff` on real llama.cpp: greedy speculation reproduces plain decoding, and a
speculative path that accepts one wrong draft (a test double) is caught at that token."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")

from specview.backends.factory import make_backend
from specview.cli import main
from specview.features.diff.model import NEAR_TIE
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
        assert data["compared"] == 48 and data["divergence"] is None
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
    base = RunSpec(target=str(target), draft=str(target), gamma=4, temperature=0.0, max_tokens=48, prompt=PROMPT)
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
