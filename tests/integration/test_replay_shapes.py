"""`diff`'s replay (backends/local/replay.py) on batch shapes other than the chain loop's, on tiny
llama GGUFs: a run that read its whole prompt in one batch (as llama-server's `/completion` does),
and a draft tree's rounds, each replayed as one tree batch in a cache with a sequence per leaf."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gguf")

from specview.backends.local.backend import LlamaBackend
from specview.backends.local.model import ModelRunner
from specview.backends.local.options import LlamaOptions
from specview.backends.local.replay import VerifyBatch, replay_greedy, sequences
from specview.features.diff.cause import greedy_on_batches
from specview.kernel.tree_shape import TreeShape
from tests.support.gguf_factory import write_tiny_llama

PROMPT = "the cat sat on the mat and the dog"
N_TOKENS = 16


def test_a_run_that_read_the_whole_prompt_at_once_replays_on_its_batches(tmp_path: Path) -> None:
    runner = ModelRunner(write_tiny_llama(tmp_path / "t.gguf"), role="target", n_gpu_layers=0, n_threads=1)
    try:
        prompt = runner.tokenize(PROMPT)
        runner.open_context(len(prompt) + N_TOKENS + 8)
        batches = [VerifyBatch(0, tuple(prompt))]
        row = runner.eval(prompt)
        out: list[int] = []
        while len(out) < N_TOKENS:  # greedy, one token at a time after the prompt's batch
            out.append(int(np.argmax(row[-1])))
            batches.append(VerifyBatch(runner.n_past, (out[-1],)))
            row = runner.eval([out[-1]])
        batches.pop()  # the step after the last token decides nothing emitted
        replay = replay_greedy(runner, prompt, batches, until=N_TOKENS)
        assert replay.followed and replay.tokens == out
        assert replay.widths[:2] == ((0, len(prompt)), (1, 1))
        wrong = [*batches[:5], VerifyBatch(batches[5].position, (out[4] + 1,)), *batches[6:]]
        refused = replay_greedy(runner, prompt, wrong, until=N_TOKENS)
        assert not refused.followed and refused.tokens == out[:5], "a batch after a token greedy did not choose"
    finally:
        runner.close()


def test_a_tree_run_replays_on_its_tree_batches_in_a_cache_with_a_sequence_per_leaf(tmp_path: Path) -> None:
    target = write_tiny_llama(tmp_path / "t.gguf", seed=0)
    draft = write_tiny_llama(tmp_path / "near.gguf", seed=0, noise=0.25)
    shape = TreeShape(3, 3)
    backend = LlamaBackend(target, LlamaOptions(draft=str(draft), prompt=PROMPT, max_tokens=N_TOKENS, n_threads=1,
                                                tree=shape))
    try:
        engine = backend.engine
        assert engine.start()
        out: list[int] = []
        while not engine.finished:
            out += [t.token_id for t in engine.step().tokens if t.emitted and t.token_id is not None]
        batches = backend.verify_batches
        assert all(len(b.parents) == len(b.tokens) for b in batches), "every round's batch is its whole tree"
        assert sequences(batches) == shape.leaves
        assert greedy_on_batches(backend, backend, until=len(out)).tokens[: len(out)] == out
        one_sequence = ModelRunner(target, role="target", n_gpu_layers=0, n_threads=1)
        try:
            one_sequence.open_context(backend.target.n_ctx, backend.target.n_batch)
            refused = replay_greedy(one_sequence, backend.prompt_tokens, batches, until=len(out))
        finally:
            one_sequence.close()
        assert not refused.followed and refused.tokens == [], "refused, where llama.cpp would abort on the copy"
    finally:
        backend.close()
