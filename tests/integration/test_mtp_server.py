"""MTP for real: llama-server's `draft-mtp` on a tiny random-weight qwen35 model with one NextN block.

The model (tests/support/mtp_gguf.py) is hybrid (one gated delta-net block), so this is also the kind
of target specview's own loop refuses. `--spec-synth-rates 0.9,0.7,0.5` makes the server accept
draft k with marginal probability rates[k] (it draws P(k | k−1) = rates[k] / rates[k−1]), so the
acceptance is a known target. Its byte-level vocabulary makes the server hold chunks back
inside UTF-8 characters (whole rounds then arrive merged with the next), which is what broke
counting by chunks; the ASCII-only twin never does, and there every round is exact.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from specview.backends.remote.backend import OpenAIBackend
from specview.backends.remote.kinds.llama_server import LlamaServerDialect
from specview.backends.remote.metrics import DraftCounters
from specview.backends.remote.options import RemoteOptions
from specview.features.live.app import SpecviewApp
from specview.kernel.events import Round
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.widgets.status_line import StatusLine
from tests.support.app_helpers import wait_finished
from tests.support.llama_server import RunningServer, llama_server, server_binary
from tests.support.mtp_gguf import write_tiny_mtp

pytestmark = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")

RATES = (0.9, 0.7, 0.5)
GAMMA = len(RATES)
MTP_ARGS = ("--spec-type", "draft-mtp", "--spec-draft-n-max", str(GAMMA),
            "--spec-synth-rates", ",".join(map(str, RATES)))
PROMPTS = ("the cat sat on", "a dog ran to the mat", "the cat and a dog", "on the mat the cat sat")
MAX_TOKENS = 400


@pytest.fixture(scope="module")
def mtp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    model = write_tiny_mtp(tmp_path_factory.mktemp("mtp") / "tiny-mtp.gguf")
    with llama_server(MTP_ARGS, model=str(model)) as server:
        yield server


@pytest.fixture(scope="module")
def ascii_mtp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    model = write_tiny_mtp(tmp_path_factory.mktemp("mtp-ascii") / "tiny-mtp-ascii.gguf", ascii_only=True)
    with llama_server(MTP_ARGS, model=str(model)) as server:
        yield server


def run(server: RunningServer, prompt: str, seed: int) -> tuple[OpenAIBackend, list[Round], DraftCounters]:
    """One request through the remote backend, and the server's own /metrics delta for it."""
    backend = OpenAIBackend(RunSpec(prompt=prompt, temperature=0.0, seed=seed, gamma=GAMMA, max_tokens=MAX_TOKENS,
                                    options=RemoteOptions(url=server.url, raw=True)), read_timeout=60.0)
    events: list[dict[str, Any]] = []
    backend.event_hook = events.append
    rounds = list(Session(backend).run_headless())
    assert backend.cross_check is not None, server.log_tail()
    # every token the server generated is in a round
    last_n = max(int(e["timings"]["predicted_n"]) for e in events if "timings" in e)
    assert sum(r.emitted for r in rounds) == last_n
    return backend, rounds, backend.cross_check.server


def merged_chunks(backend: OpenAIBackend) -> int:
    dialect = backend.dialect
    assert isinstance(dialect, LlamaServerDialect)
    return dialect.ledger.merged


def test_mtp_counts_equal_the_metrics_deltas_and_acceptance_follows_the_synthetic_rates(
        mtp_server: RunningServer) -> None:
    drafts, per_position, merged = 0, [0] * GAMMA, 0
    seed = 0
    while drafts < 300:
        backend, rounds, server = run(mtp_server, PROMPTS[seed % len(PROMPTS)], seed)
        seed += 1
        check = backend.cross_check
        assert check is not None
        counted = check.counted
        # the totals are exact, request by request, whatever the server held back
        assert (counted.drafts, counted.draft_tokens, counted.accepted) == \
            (server.drafts, server.draft_tokens, server.accepted), (counted, server)
        assert check.totals_match
        assert sum(1 for r in rounds if r.drafted > 0) == server.drafts
        drafts += counted.drafts
        merged += merged_chunks(backend)
        for k, n in enumerate(counted.per_position[:GAMMA]):
            per_position[k] += n
        assert "MTP (draft-mtp)" in backend.info.label
        assert seed < 40, "the server stopped drafting"
    assert merged > 0, "the byte-level model should make the server hold chunks back"
    # marginal per-position acceptance against the synthetic rates, within 4 standard errors
    for k, rate in enumerate(RATES):
        measured = per_position[k] / drafts
        sigma = math.sqrt(rate * (1 - rate) / drafts)
        assert abs(measured - rate) < 4 * sigma + 0.01, (k, measured, rate, drafts)


def test_every_round_is_exact_when_nothing_is_held_back(ascii_mtp_server: RunningServer) -> None:
    backend, rounds, server = run(ascii_mtp_server, PROMPTS[0], 1)
    check = backend.cross_check
    assert check is not None and check.matches, (check.counted, check.server)
    assert merged_chunks(backend) == 0
    assert not any(t.inferred for r in rounds for t in r.tokens)
    assert all(r.accepted <= r.drafted <= GAMMA for r in rounds)
    assert server.drafts >= 100


async def test_the_live_view_names_mtp_from_what_the_server_reports(mtp_server: RunningServer,
                                                                   tmp_path: Path) -> None:
    spec = RunSpec(prompt=PROMPTS[0], temperature=0.0, max_tokens=60,
                   options=RemoteOptions(url=mtp_server.url, raw=True))
    app = SpecviewApp(spec, OpenAIBackend(spec, read_timeout=60.0))
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_finished(pilot)
        assert app.live.session.drain(limit=0).error is None
        what = app.live.query_one(StatusLine).what
        assert "MTP (draft-mtp)" in what, what
        assert app.live.session.metrics.accepted > 0
