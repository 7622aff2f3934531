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
from specview.features.live.run_text import notes_text
from specview.kernel.backend import Note
from specview.kernel.events import Round, TokenStatus
from specview.kernel.metrics_snapshot import MetricsSnapshot
from tests.support.llama_server import (
    NGRAM_ARGS,
    SYNTH_ARGS,
    RunningServer,
    free_port,
    llama_server,
    llama_server_argv,
    server_binary,
    shown_command,
    stream_once,
)

pytestmark = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")

MAX_TOKENS = 64
STORY = "Write a short story about a lighthouse keeper."
COUNTING = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,"
REPEATING = "Roses are red, violets are blue, the sea is deep and the sky is wide. " * 4 + "Roses are"


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


def test_the_ngram_presets_command_runs_as_shown_and_specview_watches_it() -> None:
    """`x` on the ngram preset: the llama-server command exactly as shown (model file, port and
    thread count substituted for this machine), then the specview command shown after it."""
    import shlex

    from specview.backends.factory import make_backend
    from specview.backends.remote.registry import engines
    from specview.catalog.presets import get_preset
    from specview.cli.parser import build_parser
    from specview.cli.runspec_args import spec_from_args
    from specview.features.live.real_run import real_runs
    from specview.kernel.overlay import MIN_PLAIN_ROUNDS, PLAIN_ROUNDS, overlay
    from specview.kernel.session import Session

    run = {r.engine: r for r in real_runs(get_preset("ngram"), engines())}["llama-server"]
    assert "--metrics" in run.command and "--spec-draft-n-max" not in run.command  # it does not bound ngram-simple
    assert run.watch == "specview --url http://127.0.0.1:8080/v1"
    port = free_port()
    with llama_server_argv(shown_command(run.command, port), port) as server:
        watch = shlex.split(run.watch.replace(":8080/", f":{port}/"))
        assert watch[0] == "specview"
        args = build_parser().parse_args([*watch[1:], "--raw", "--prompt", REPEATING, "--max-tokens",
                                          str(MAX_TOKENS)])
        backend = make_backend(spec_from_args(args))
        session = Session(backend)
        rounds = list(session.run_headless())
        snap = session.metrics.snapshot()
        assert isinstance(backend, OpenAIBackend) and backend.info.label.startswith("llama-server")
        assert any(r.accepted for r in rounds), server.log_tail()
        assert max(r.drafted for r in rounds) <= 10  # --spec-ngram-simple-size-m 10 bounds the draft
        assert backend.cross_check is not None and backend.cross_check.matches
        over = overlay(snap)
        if snap.plain_rounds >= MIN_PLAIN_ROUNDS:  # n-gram rounds that found no match time a plain step
            assert over.speedup_basis == PLAIN_ROUNDS and over.speedup_measured is not None


def test_bench_pairs_the_ngram_server_with_a_plain_one(ngram_server: RunningServer,
                                                      plain_server: RunningServer) -> None:
    """`specview bench --url A --baseline-url B`: the speedup of n-gram drafting against the same
    model decoding plainly, both measured here."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "specview", "bench", "--url", ngram_server.url, "--baseline-url",
                          plain_server.url, "--raw", "--prompt", COUNTING, "--max-tokens", str(MAX_TOKENS), "--json"],
                         capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    assert stats["provenance"]["speedup_basis"] == "paired" and stats["drafted"] > 0
    # (both rates are rounded to 2 decimals in the JSON)
    assert stats["speedup"] == pytest.approx(stats["tokens_per_second"] / stats["plain_tokens_per_second"], rel=5e-3)
