"""The remote backend against a real llama-server (Gemma 3 270M on 127.0.0.1, T = 0).

One server per configuration (module-scoped fixtures): synthetic acceptance with the model
as its own draft, n-gram drafting, and speculation off. Skipped when llama-server is not
built (`make llama-server`, which `make test` runs first).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from specview.backends.remote.backend import OpenAIBackend
from specview.backends.remote.dialect import chunk_text
from specview.backends.remote.metrics import parse_draft_counters
from specview.core.backend import Note
from specview.core.events import Round, TokenStatus
from specview.core.metrics import MetricsSnapshot
from specview.tui.run_text import notes_text
from tests.llama_server import NGRAM_ARGS, SYNTH_ARGS, RunningServer, llama_server, server_binary, stream_once

pytestmark = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")

MAX_TOKENS = 64
STORY = "Write a short story about a lighthouse keeper."
COUNTING = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,"


@pytest.fixture(scope="module")
def synth_server() -> Iterator[RunningServer]:
    with llama_server(SYNTH_ARGS, draft_same_model=True) as server:
        yield server


@pytest.fixture(scope="module")
def ngram_server() -> Iterator[RunningServer]:
    with llama_server(NGRAM_ARGS) as server:
        yield server


@pytest.fixture(scope="module")
def plain_server() -> Iterator[RunningServer]:
    with llama_server() as server:
        yield server


def run(server: RunningServer, prompt: str, *, raw: bool = False) -> tuple[OpenAIBackend, list[Round],
                                                                            list[dict[str, Any]], MetricsSnapshot]:
    """Stream one completion through Session.run_headless, teeing the raw events."""
    backend, rounds, events, session = stream_once(server, prompt, raw=raw, max_tokens=MAX_TOKENS, read_timeout=30.0)
    return backend, rounds, events, session.metrics.snapshot()


def metrics_counters(server: RunningServer) -> Any:
    return parse_draft_counters(httpx.get(f"{server.root}/metrics", timeout=5).text, "llamacpp")


def accepted_at(snap: MetricsSnapshot) -> list[int]:
    return [round((a or 0.0) * v) for a, v in zip(snap.per_position_acceptance, snap.per_position_verified,
                                                  strict=True)]


def test_synthetic_acceptance_matches_the_server_counters_exactly(synth_server: RunningServer) -> None:
    before = metrics_counters(synth_server)
    backend, rounds, events, snap = run(synth_server, STORY)
    after = metrics_counters(synth_server)
    assert before is not None and after is not None, synth_server.log_tail()
    server = after.minus(before)

    assert backend.info.label.startswith("llama-server · draft model (draft-simple) · ")
    assert backend.info.exact["acceptance"]
    assert backend.info.notes == (Note("llama_server_checked", {"build": backend.facts.build or "?"}),
                                  Note("server_method", {"method": "draft model (draft-simple)"}))
    shown = notes_text(backend.info, "en")
    assert shown.startswith(f"llama-server build {backend.facts.build or '?'}:")
    assert shown.endswith("; the server drafts with draft model (draft-simple)")
    assert server.drafts > 5, synth_server.log_tail()
    # totals: specview's fold equals the server's own /metrics deltas
    assert snap.drafted == server.draft_tokens
    assert snap.accepted == server.accepted
    assert sum(1 for r in rounds if r.drafted > 0) == server.drafts
    # per position: accepted counts at each draft position equal the server's per-position counters
    width = max(len(server.per_position), len(snap.per_position_acceptance))
    mine = accepted_at(snap) + [0] * (width - len(snap.per_position_acceptance))
    assert mine == list(server.per_position) + [0] * (width - len(server.per_position))
    assert backend.cross_check is not None and backend.cross_check.matches
    # the reconstruction adds up to exactly the streamed text and token count
    assert "".join(r.text for r in rounds) == "".join(chunk_text(e) for e in events)
    last_n = max(int(e["timings"]["predicted_n"]) for e in events if "timings" in e)
    assert snap.tokens == last_n
    kinds = {t.status for r in rounds for t in r.tokens}
    assert {TokenStatus.ACCEPTED, TokenStatus.CORRECTED, TokenStatus.BONUS} <= kinds
    assert not any(t.inferred for r in rounds for t in r.tokens)
    assert all(r.accepted <= r.drafted <= 4 for r in rounds)


def test_ngram_drafts_on_a_repetitive_prompt(ngram_server: RunningServer) -> None:
    backend, rounds, events, snap = run(ngram_server, COUNTING, raw=True)
    accepted_rounds = [r for r in rounds if r.accepted > 0]
    assert accepted_rounds, [r.to_dict() for r in rounds[:10]]
    assert all(r.tokens[-1].status in (TokenStatus.CORRECTED, TokenStatus.BONUS) for r in accepted_rounds)
    assert snap.tau is not None and snap.tau > 1.0
    assert "".join(r.text for r in rounds) == "".join(chunk_text(e) for e in events)
    assert backend.cross_check is not None and backend.cross_check.matches


def test_speculation_off_is_all_plain(plain_server: RunningServer) -> None:
    backend, rounds, events, snap = run(plain_server, STORY)
    assert rounds
    assert all(t.status is TokenStatus.PLAIN for r in rounds for t in r.tokens)
    assert all(len(r.tokens) == 1 and r.drafted == 0 for r in rounds)
    assert snap.tau == 1.0 and snap.drafted == 0
    assert backend.cross_check is not None and backend.cross_check.matches
    assert "".join(r.text for r in rounds) == "".join(chunk_text(e) for e in events)
