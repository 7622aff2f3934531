"""What one run may hold, whatever its input: a recording's totals lines summed without their
source names growing, reconcile lines folded without folding every round again, a server's token
text kept within a request's budget, and totals that add up past 2^53 refused at their line.

Each case runs specview in a child process under an address-space limit; the time bound is the
test's own timeout (a case that goes quadratic again runs past it and fails)."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import specview.kernel.session as session_module
from specview.backends.remote.sse import iter_event_data
from specview.backends.remote.text_budget import TextBudget
from specview.boundary.bounds import MAX_REQUEST_TEXT
from specview.kernel.backend import BackendInfo, BackendKind
from specview.kernel.events import Reconcile, Round, StreamItem, TokenEvent, TokenStatus
from specview.kernel.metrics import Metrics
from specview.kernel.session import Session
from specview.kernel.totals import Totals
from tests.support.hostile_checks import json_lines, one_error_line
from tests.support.hostile_server import HostileServer, Scenario, chat_chunk, hostile_server
from tests.support.limited_run import base_env, run_cli
from tests.support.served import sse_event

MIB = 2**20
TOTALS_LINES = 30_500  # distinct 61-character sources: a 3.7 MB recording
RECONCILE_PAIRS = 8_000
BIG_EVENTS, BIG_EVENT_CHARS = 30, 7_000_000  # under the 8 MiB bound on one event
MAX_COUNTER = 2**53


def header(version: int, **backend: Any) -> dict[str, Any]:
    return {"type": "header", "format": "specview-recording", "version": version, "specview": "0.1.0",
            "backend": {"name": "openai", "label": "server", **backend}, "settings": {"gamma": 1}}


def round_(index: int) -> dict[str, Any]:
    tokens = [{"id": None, "text": "a", "status": "accepted", "pos": 0, "p": None, "q": None},
              {"id": None, "text": " b", "status": "bonus", "pos": 1, "p": None, "q": None}]
    return {"type": "round", "index": index, "drafted": 1, "tokens": tokens, "t_draft_s": None,
            "t_verify_s": None, "t_wall": 1.0 + index / 100}


def write(path: Path, lines: Iterator[dict[str, Any]]) -> Path:
    with path.open("w", encoding="utf-8") as file:
        for line in lines:
            file.write(json.dumps(line) + "\n")
    return path


def totals_recording(path: Path) -> Path:
    lines = ({"type": "totals", "source": f"sglext.{k:08d}.{'x' * 45}", "drafted": 1, "accepted": 1}
             for k in range(TOTALS_LINES))
    return write(path, itertools.chain([header(4)], lines))


def reconcile_recording(path: Path, replacing: bool) -> Path:
    """A round, then a reconcile: of that round by an exact one (`replacing`), or an empty one far ahead."""
    def pairs() -> Iterator[dict[str, Any]]:
        for k in range(RECONCILE_PAIRS):
            yield round_(k)
            if replacing:
                yield {"type": "reconcile", "first_index": k, "rounds": [round_(k)]}
            else:
                yield {"type": "reconcile", "first_index": 10**9, "rounds": []}
    return write(path, itertools.chain([header(2, reconciles=True)], pairs()))


@pytest.mark.timeout(30)
def test_many_totals_lines_replay_with_a_bounded_source(tmp_path: Path) -> None:
    file = totals_recording(tmp_path / "totals.jsonl")
    assert file.stat().st_size > 3.7e6
    run = run_cli(["replay", str(file), "--json"], base_env(tmp_path))
    assert run.returncode == 0, run.err
    (stats,) = json_lines(run.stdout)
    totals = stats["totals"]
    assert isinstance(totals, dict)
    assert totals["requests"] == TOTALS_LINES and totals["drafted"] == TOTALS_LINES
    assert len(totals["source"]) <= 512, len(totals["source"])
    assert totals["source"].startswith("sglext.00000000.")
    assert len(run.stdout) < 64 * 1024


@pytest.mark.timeout(30)
@pytest.mark.parametrize("replacing", [True, False], ids=["each-replacing-its-round", "empty-far-ahead"])
def test_many_reconcile_lines_replay_in_bounded_time(tmp_path: Path, replacing: bool) -> None:
    file = reconcile_recording(tmp_path / "reconciles.jsonl", replacing)
    run = run_cli(["replay", str(file), "--json"], base_env(tmp_path))
    assert run.returncode == 0, run.err
    (stats,) = json_lines(run.stdout)
    assert stats["rounds"] == RECONCILE_PAIRS and stats["tokens"] == 2 * RECONCILE_PAIRS
    assert stats["drafted"] == RECONCILE_PAIRS and stats["accepted"] == RECONCILE_PAIRS


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


@pytest.mark.timeout(60)
def test_huge_token_text_is_cut_and_said(server: HostileServer, tmp_path: Path) -> None:
    event = sse_event(chat_chunk("x" * BIG_EVENT_CHARS))  # one payload, sent again and again
    server.scenario = Scenario(events=[lambda: itertools.repeat(event, BIG_EVENTS)])
    run = run_cli(["bench", "--url", server.url, "--max-tokens", "64", "--json"], base_env(tmp_path),
                  memory=512 * MIB, timeout=55.0)
    assert run.returncode == 0, run.err[-2000:]
    assert len(run.stdout) < 5 * MIB, len(run.stdout)
    (stats,) = json_lines(run.stdout)
    assert stats["tokens"] == BIG_EVENTS
    text = stats["text"]
    assert isinstance(text, str)
    kept = len(text)
    assert kept == MAX_REQUEST_TEXT + BIG_EVENTS - 4  # 4 chunks of 1 MiB, then one character a chunk
    cut = stats["text_truncated"]
    assert isinstance(cut, dict)
    assert cut["values"]["characters"] == str(BIG_EVENTS * BIG_EVENT_CHARS - kept)
    assert cut["text"] and cut["id"] == "text_cut"


def test_a_request_keeps_its_text_budget_and_every_chunk_with_text_still_counts() -> None:
    budget = TextBudget(per_chunk=4, per_request=10)
    chunks = [chat_chunk(text) for text in ("abcdef", "gh", "ijklmn", "opqrst", "u", "")]
    for chunk in chunks:
        budget.clip(chunk)
    kept = [chunk["choices"][0]["delta"]["content"] for chunk in chunks]
    assert kept == ["abcd", "gh", "ijkl", "o", "u", ""]  # past the request's 10: the first character
    assert (budget.dropped, budget.cut) == (2 + 2 + 5, 3)
    native = {"content": "x" * 9}  # llama.cpp's native stream
    budget.clip(native)
    assert native["content"] == "x" and budget.note() is not None


def test_totals_that_add_up_past_the_bound_name_their_line(tmp_path: Path) -> None:
    half = {"type": "totals", "source": "meta_info", "drafted": MAX_COUNTER // 2 + 1, "accepted": 0}
    file = write(tmp_path / "sum.jsonl", iter([header(4), round_(0), half, half]))
    for args in (["replay", str(file), "--json"], ["replay", str(file), "--json", "--lang", "zh"]):
        run = run_cli(args, base_env(tmp_path))
        line = one_error_line(run.err)
        assert run.returncode == 2, run.err
        assert f"{file} line 4: " in line or f"{file} 第 4 行" in line, line
        assert "internal error" not in line and str(MAX_COUNTER) in line, line
        (stats,) = json_lines(run.stdout)  # the statistics of the lines before it still print
        totals = stats["totals"]
        assert isinstance(totals, dict)
        assert totals["drafted"] == MAX_COUNTER // 2 + 1 and totals["requests"] == 1


def test_the_event_reader_finds_the_same_events_however_the_bytes_arrive() -> None:
    stream = b"data: a\r\n\r\ndata: " + b"x" * 5000 + b"\r\rdata: b\ndata: c\n\n: note\r\n\r\ndata: d"
    whole = list(iter_event_data([stream], MIB))
    assert whole == ["a", "x" * 5000, "b\nc", "d"]
    for size in (1, 2, 3, 7, 64, 4999, 5001):
        pieces = [stream[k:k + size] for k in range(0, len(stream), size)]
        assert list(iter_event_data(pieces, MIB)) == whole, size


# -- reconciles folded from where the request began: the same numbers as the exact rounds alone --
def exact_round(index: int, accepted: int, drafted: int = 3) -> Round:
    tokens = [TokenEvent(None, "a", TokenStatus.ACCEPTED, position=k) for k in range(accepted)]
    last = TokenStatus.BONUS if accepted == drafted else TokenStatus.CORRECTED
    return Round(index, drafted, (*tokens, TokenEvent(None, "c", last, position=accepted)), None, None,
                 1.0 + index / 10)


def streamed_round(index: int) -> Round:
    return Round(index, 0, (TokenEvent(None, "s", TokenStatus.PLAIN, inferred=True),), None, None, 1.0 + index / 10)


class Listed:
    """A backend that reconciles, yielding `items`."""

    def __init__(self, items: list[StreamItem]) -> None:
        self.items = items
        self.info = BackendInfo(backend=BackendKind.REMOTE, label="listed", gamma=3, temperature=1.0, reconciles=True)

    def rounds(self, stop: threading.Event) -> Iterator[StreamItem]:
        yield from self.items

    def close(self) -> None:
        """Nothing to release."""


def replayed(items: list[StreamItem]) -> Session:
    session = Session(Listed(items))
    list(session.run_headless())
    return session


def folded(items: list[Round | Totals]) -> Metrics:
    metrics = Metrics()
    for item in items:
        metrics.add(item)
    return metrics


@pytest.mark.parametrize("held", [4, 1000], ids=["request-outgrew-its-hold", "request-held-whole"])
def test_a_reconcile_of_a_request_is_the_exact_rounds_alone(monkeypatch: pytest.MonkeyPatch, held: int) -> None:
    monkeypatch.setattr(session_module, "MAX_HELD_ROUNDS", held)
    first = [exact_round(k, k % 4) for k in range(12)]
    closing = Totals(36, sum(k % 4 for k in range(12)), tokens=12 + sum(k % 4 for k in range(12)))
    exact = tuple(exact_round(k, (k * 7) % 4) for k in range(12, 31))
    session = replayed([*first, closing, *(streamed_round(k) for k in range(12, 40)), Reconcile(12, exact)])
    assert session.metrics.snapshot() == folded([*first, closing, *exact]).snapshot()
    shown = [r.index for r in session.history]  # the last rounds, as many as the hold keeps
    assert shown == list(range(31))[-len(shown):] and len(shown) >= min(held, 31)


def test_a_reconcile_inside_a_request_keeps_the_rounds_before_it() -> None:
    streamed = [exact_round(k, k % 3) for k in range(10)]
    exact = (exact_round(6, 3), exact_round(7, 0))
    session = replayed([*streamed, Reconcile(6, exact)])
    assert session.metrics.snapshot() == folded([*streamed[:6], *exact]).snapshot()
    assert session.history == [*streamed[:6], *exact]


def test_a_reconcile_replaces_the_request_in_progress_never_one_that_ended() -> None:
    before = [exact_round(k, 1) for k in range(5)]
    closing = Totals(15, 5, tokens=10)
    after = [exact_round(k, 2) for k in range(5, 8)]
    session = replayed([*before, closing, *after, Reconcile(0, ())])  # the rounds after the totals go
    assert session.metrics.snapshot() == folded([*before, closing]).snapshot()
    assert session.history == before
    session = replayed([*before, closing, Reconcile(0, (exact_round(5, 3),))])  # no request in progress
    assert session.metrics.snapshot() == folded([*before, closing, exact_round(5, 3)]).snapshot()
