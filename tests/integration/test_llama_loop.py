"""The speculative loop on tiny random llama GGUFs written at test time (no downloads, no mocks)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("llama_cpp")
pytest.importorskip("gguf")

from specview.backends.local.backend import LlamaBackend
from specview.backends.local.drafters import AdaptiveGamma, ModelDrafter, NgramDrafter
from specview.backends.local.model import ModelRunner
from specview.backends.local.options import LlamaOptions
from specview.backends.local.verify import verify_greedy_logits
from specview.backends.local.vocab import TextStream
from specview.kernel.events import Round, TokenStatus
from specview.kernel.sampling import verify_greedy
from tests.support.gguf_factory import write_tiny_llama

PROMPT = "the cat sat on the mat and the dog ran to the mat"
THREADS = 1  # robust on a busy 2-core machine: ggml threads spin while they wait


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("gguf")
    return {
        "target": write_tiny_llama(d / "target.gguf", seed=0),
        "near": write_tiny_llama(d / "near.gguf", seed=0, noise=0.25),  # related draft: some rejections
        "random": write_tiny_llama(d / "random.gguf", seed=7),
    }


def run(backend: LlamaBackend) -> list[Round]:
    try:
        return [r for r in backend.rounds(threading.Event()) if isinstance(r, Round)]
    finally:
        backend.close()


def plain_greedy(path: Path, prompt: str, n: int) -> tuple[list[int], float]:
    """The target's own greedy continuation, one token per decode; also the smallest top-2 gap."""
    runner = ModelRunner(path, role="target", n_gpu_layers=0, n_threads=THREADS)
    try:
        tokens = runner.tokenize(prompt)
        runner.open_context(len(tokens) + n + 8)
        row = runner.prefill(tokens)
        out: list[int] = []
        gap = np.inf
        while row is not None and len(out) < n:
            top2 = np.sort(row[-1])[-2:]
            gap = min(gap, float(top2[1] - top2[0]))
            tok = int(np.argmax(row[-1]))
            out.append(tok)
            if runner.is_eog(tok):
                break
            row = runner.eval([tok])
        return out, gap
    finally:
        runner.close()


def emitted_ids(rounds: list[Round]) -> list[int]:
    return [t.token_id for r in rounds for t in r.tokens if t.emitted and t.token_id is not None]


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_draft_equal_to_target_accepts_every_draft(models: dict[str, Path], temperature: float) -> None:
    backend = LlamaBackend(models["target"], LlamaOptions(draft=str(models["target"]), prompt=PROMPT, gamma=4,
                                                          temperature=temperature, max_tokens=41, chat_template="none",
                                                          n_threads=THREADS))
    rounds = run(backend)
    drafted = sum(r.drafted for r in rounds)
    assert drafted >= 30
    assert sum(r.accepted for r in rounds) == drafted
    assert all(r.tokens[-1].status is TokenStatus.BONUS for r in rounds if r.drafted)
    assert [r.drafted for r in rounds][-1] == 0, "the last token fits no draft: a plain round"
    assert sum(r.emitted for r in rounds) == 41


def test_different_draft_rejects_and_greedy_text_equals_target(models: dict[str, Path]) -> None:
    n = 48
    reference, gap = plain_greedy(models["target"], PROMPT, n)
    assert gap > 1e-3, "the tiny model must have no near-ties for an exact comparison"
    for draft in ("near", "random"):
        backend = LlamaBackend(models["target"], LlamaOptions(draft=str(models[draft]), prompt=PROMPT, gamma=4,
                                                              max_tokens=n, chat_template="none", n_threads=THREADS))
        rounds = run(backend)
        statuses = [t.status for r in rounds for t in r.tokens]
        assert TokenStatus.REJECTED in statuses and TokenStatus.CORRECTED in statuses
        assert emitted_ids(rounds) == reference[:n]
        for r in rounds:  # one rejection at most, followed by its correction, then the discarded drafts
            kinds = [t.status for t in r.tokens]
            if TokenStatus.REJECTED in kinds:
                assert kinds[-2:] == [TokenStatus.REJECTED, TokenStatus.CORRECTED]
                at = r.tokens[-2].position
                assert at is not None
                assert [t.position for t in r.discarded] == list(range(at + 1, r.drafted))
                assert all(t.status is TokenStatus.DISCARDED and t.p is None and t.q is not None and 0 < t.q <= 1
                           and t.token_id is not None for t in r.discarded)
            else:
                assert r.discarded == ()
        assert any(r.discarded for r in rounds), "some round was refused before its last draft"
    near = LlamaBackend(models["target"], LlamaOptions(draft=str(models["near"]), prompt=PROMPT, gamma=4, max_tokens=n,
                                                       chat_template="none", n_threads=THREADS))
    assert sum(r.accepted for r in run(near)) > 0, "a related draft should get some drafts accepted"


def _first_tokens(backend: LlamaBackend, runs: int) -> tuple[np.ndarray, int]:
    engine = backend.engine
    firsts = np.zeros(backend.target.n_vocab, dtype=np.int64)
    rejected = 0
    for seed in range(runs):
        engine.seed = seed
        assert engine.start()
        rnd = engine.step()
        first = rnd.tokens[0]
        if first.status is TokenStatus.REJECTED:
            rejected += 1
            first = rnd.tokens[1]
        assert first.token_id is not None
        firsts[first.token_id] += 1
    return firsts, rejected


def _target_first_p(path: Path, prompt_tokens: list[int], temperature: float) -> np.ndarray:
    runner = ModelRunner(path, role="target", n_gpu_layers=0, n_threads=THREADS)
    try:
        runner.open_context(len(prompt_tokens) + 8)
        row = runner.prefill(prompt_tokens)
        assert row is not None
        z = row[-1].astype(np.float64) / temperature
        w = np.exp(z - z.max())
        return w / w.sum()
    finally:
        runner.close()


@pytest.mark.parametrize("draft", ["near", "ngram"])
def test_sampling_first_token_follows_target_softmax(models: dict[str, Path], draft: str) -> None:
    from scipy.stats import chisquare

    temperature, runs = 3.0, 1200
    prompt = "abcabcabcabcab" if draft == "ngram" else PROMPT
    spec = "ngram" if draft == "ngram" else str(models[draft])
    backend = LlamaBackend(models["target"], LlamaOptions(draft=spec, prompt=prompt, gamma=3, temperature=temperature,
                                                          max_tokens=4, chat_template="none", n_threads=THREADS))
    try:
        counts, rejected = _first_tokens(backend, runs)
        p = _target_first_p(models["target"], backend.prompt_tokens, temperature)
    finally:
        backend.close()
    assert rejected > runs // 20, "the test must exercise the rejection / residual path"
    expected = p * runs
    big = expected >= 5
    assert big.sum() >= 3
    obs = np.append(counts[big], counts[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    result = chisquare(obs, exp)
    assert result.pvalue > 1e-3, (result, obs, exp.round(1))


def test_ngram_draft_runs_and_matches_plain_greedy(models: dict[str, Path]) -> None:
    prompt = "abcdefgh abcdefgh abcdefgh abcd"
    reference, _ = plain_greedy(models["target"], prompt, 24)
    rounds = run(LlamaBackend(models["target"], LlamaOptions(draft="ngram", prompt=prompt, gamma=4, max_tokens=24,
                                                             chat_template="none", n_threads=THREADS)))
    assert rounds[0].drafted > 0, "the repeated prompt gives prompt lookup something to propose"
    assert all(t.q in (1.0, None) for t in rounds[0].tokens if t.status is TokenStatus.ACCEPTED)
    assert emitted_ids(rounds) == reference
    plain = run(LlamaBackend(models["target"], LlamaOptions(plain=True, prompt=prompt, max_tokens=24,
                                                            chat_template="none", n_threads=THREADS)))
    assert all(r.drafted == 0 and [t.status for t in r.tokens] == [TokenStatus.PLAIN] for r in plain)
    assert all(r.t_verify_s is not None and r.t_draft_s is None for r in plain)
    assert emitted_ids(plain) == reference


def test_kv_rollback_leaves_cache_consistent(models: dict[str, Path]) -> None:
    backend = LlamaBackend(models["target"], LlamaOptions(draft=str(models["near"]), prompt=PROMPT, gamma=5,
                                                          max_tokens=60, chat_template="none", n_threads=THREADS))
    try:
        engine, target = backend.engine, backend.target
        assert isinstance(engine.drafter, ModelDrafter)
        assert engine.start()
        rejections = 0
        lib = target.lib
        while rejections < 3 and not engine.finished:
            rnd = engine.step()
            rejections += any(t.status is TokenStatus.REJECTED for t in rnd.tokens)
            committed = engine._run.committed
            assert target.n_past == len(committed) - 1
            assert lib.llama_memory_seq_pos_max(lib.llama_get_memory(target.ctx), 0) == len(committed) - 2
            drafter = engine.drafter
            assert drafter.cached == committed[: len(drafter.cached)]
            assert drafter.runner.n_past == len(drafter.cached)
        assert rejections == 3
        committed = list(engine._run.committed)
        continued = target.eval([committed[-1]])[-1].copy()  # a view until the next eval
        target.reset()
        fresh_row = target.prefill(committed)
        assert fresh_row is not None
        fresh = fresh_row[-1]
        assert int(np.argmax(continued)) == int(np.argmax(fresh))
        np.testing.assert_allclose(continued, fresh, rtol=1e-3, atol=1e-3)
    finally:
        backend.close()


def test_fast_greedy_verdict_matches_core_verify_greedy() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        gamma = int(rng.integers(0, 6))
        rows = (rng.standard_normal((gamma + 1, 50)) * 3).astype(np.float32)
        drafts = [int(np.argmax(r)) if rng.random() < 0.7 else int(rng.integers(50)) for r in rows[:gamma]]
        ours = verify_greedy_logits(rows, drafts)
        core = verify_greedy(rows, drafts).decisions
        assert [(d.token_id, d.position) for d in ours] == [(d.token_id, d.position) for d in core]
        kinds = [d.status for d in core]
        if gamma == 0:
            kinds = [TokenStatus.PLAIN]
        assert [d.status for d in ours] == kinds
        for d in ours:
            assert 0.0 < d.p <= 1.0


def test_text_stream_keeps_split_characters() -> None:
    stream = TextStream()
    data = "é漢🙂".encode()
    assert stream.peek(data[:1]) == ""
    out = "".join(stream.push(data[i : i + 1]) for i in range(len(data)))
    assert out + stream.flush() == "é漢🙂"


def test_ngram_lookup_and_adaptive_gamma() -> None:
    ngram = NgramDrafter(16, n_max=3, n_min=1)
    assert ngram.propose([1, 2, 3, 4, 9, 1, 2, 3], 3) == [4, 9, 1]
    assert ngram.propose([1, 2, 3, 7, 1, 2, 3, 8, 2, 3], 2) == [8, 2]  # latest match wins
    assert ngram.propose([5, 6, 7], 4) == []
    g = AdaptiveGamma(4)
    g.update(4, 4)
    assert g.value == 5
    g.update(5, 1)
    g.update(4, 0)
    assert g.value == 3
    for _ in range(10):
        g.update(1, 0)
    assert g.value == 1
