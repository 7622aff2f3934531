"""Totals, a server's exact counts at the end of a request: the event, its fold, its gauges' tag,
the Session around it, and recordings of it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from specview.backends.remote.dialect import Dialect, RequestSettings, usage_tokens
from specview.backends.remote.kinds.generic import GenericDialect
from specview.backends.remote.kinds.llama_server import LlamaServerDialect
from specview.backends.remote.kinds.sglang import SglangDialect
from specview.backends.remote.kinds.vllm import VllmDialect
from specview.backends.remote.server_kind import EXACT, INFERRED
from specview.backends.replay import ReplayBackend
from specview.boundary.bounds import Invalid
from specview.features.live.run_text import check_text, notes_text
from specview.features.record.recorder import Recorder, header_record
from specview.features.record.recording import read_recording
from specview.kernel.backend import BackendInfo
from specview.kernel.errors import RecordingError
from specview.kernel.events import Reconcile, Round, StreamItem, TokenEvent, TokenStatus
from specview.kernel.gauges import GAUGES, Reading
from specview.kernel.metrics import Metrics
from specview.kernel.session import Session
from specview.kernel.totals import CrossChecked, Totals
from specview.report.run_json import stats_dict
from specview.texts.catalog import fill
from specview.tui.gauges import note_text

A, R, C, B, P = (TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS,
                 TokenStatus.PLAIN)


def plain(index: int, t: float = 0.0) -> Round:
    return Round(index, 0, (TokenEvent(None, "x", P, inferred=True),), None, None, t)


def drafted(index: int, gamma: int, accepted: int, inferred: bool = True) -> Round:
    """A round that drafted `gamma` and accepted the first `accepted`, then its own token."""
    tokens = [TokenEvent(None, "a", A, k, inferred=inferred) for k in range(accepted)]
    last = B if accepted == gamma else C
    tokens.append(TokenEvent(None, "c", last, accepted, inferred=inferred))
    return Round(index, gamma, tuple(tokens), None, None, float(index))


# SGLang's numbers for one request (tests/support/fake_engines.py): 11 tokens, 5 verify steps that accepted
# 2, 0, 1, 0, 2 of 3 drafts; the stream merged steps, so its rounds (inferred) said otherwise.
SGLANG = Totals(drafted=15, accepted=5, per_position=(3, 2, 0), verify_steps=5, tokens=11, source="sglext")
STREAMED = [plain(0), drafted(1, 3, 3), drafted(2, 3, 1), drafted(3, 3, 0), drafted(4, 3, 2)]


def test_totals_replace_the_inferred_counts_of_their_request() -> None:
    """No double count: the request's drafted and accepted are the server's, not rounds + totals."""
    m = Metrics()
    for r in STREAMED:
        m.add(r)
    before = m.snapshot()
    assert (before.rounds, before.drafted, before.accepted) == (5, 12, 6)
    m.add(SGLANG)
    s = m.snapshot()
    assert (s.rounds, s.tokens, s.drafted, s.accepted) == (6, 11, 15, 5)  # rounds = tokens − accepted
    assert s.verified == 5 + 3 + 2  # position 1 in every step, 2 where 1 passed, 3 where 2 passed
    assert s.acceptance_rate == pytest.approx(0.5) and s.tau == pytest.approx(11 / 6)
    assert s.per_position_acceptance == pytest.approx((3 / 5, 2 / 3, 0.0))
    assert s.gamma_counts == ((0, 1), (3, 5))
    assert s.totals == SGLANG and s.totals_requests == 1
    assert s.exact_totals == {"acceptance", "tau", "per_position"}
    # the window and the history follow the rounds as streamed
    assert s.window_tau == before.window_tau and s.tau_history == before.tau_history


def test_totals_without_rounds_are_a_whole_request() -> None:
    """An engine that streams plain text and tells its counts only at the end (no per-position)."""
    m = Metrics()
    for k in range(8):
        m.add(plain(k, float(k)))
    m.add(Totals(drafted=12, accepted=4, tokens=10, source="stats"))
    s = m.snapshot()
    assert (s.rounds, s.tokens, s.drafted, s.accepted) == (6, 10, 12, 4)
    assert s.gamma_counts == ((0, 1), (2, 5))  # every forward after the prompt's drafted: 12 / 5 ≈ 2
    assert s.verified == min(12, 4 + 5)  # each step taken to end in a rejection
    assert s.draft_yield == pytest.approx(4 / 12)
    assert s.exact_totals == {"tau"}  # α is a bound without per-position counts
    assert s.per_position_acceptance == ()


def test_each_request_closes_only_its_own_rounds() -> None:
    m = Metrics()
    for r in STREAMED:
        m.add(r)
    m.add(SGLANG)
    for r in STREAMED:
        m.add(r)
    assert m.snapshot().exact_totals == frozenset()  # a request is open: its rounds are inferred
    m.add(SGLANG)
    s = m.snapshot()
    assert (s.rounds, s.tokens, s.drafted, s.accepted, s.verified) == (12, 22, 30, 10, 20)
    assert s.totals == Totals(30, 10, (6, 4, 0), 10, 22, "sglext") and s.totals_requests == 2


def _exact_rounds(steps: list[int], gamma: int) -> list[Round]:
    return [plain(0), *(drafted(k + 1, gamma, a, inferred=False) for k, a in enumerate(steps))]


@given(st.integers(1, 6).flatmap(lambda g: st.tuples(st.just(g), st.lists(st.integers(0, g), max_size=40))))
def test_totals_that_agree_with_exact_rounds_change_no_count(case: tuple[int, list[int]]) -> None:
    gamma, steps = case
    rounds = _exact_rounds(steps, gamma)
    alone = Metrics()
    for r in rounds:
        alone.add(r)
    closed = Metrics()
    for r in rounds:
        closed.add(r)
    per_position = tuple(sum(1 for a in steps if a > k) for k in range(gamma))
    closed.add(Totals(gamma * len(steps), sum(steps), per_position, len(steps), len(steps) + sum(steps) + 1))
    a, b = alone.snapshot(), closed.snapshot()
    assert (a.rounds, a.tokens, a.drafted, a.accepted, a.verified) == (b.rounds, b.tokens, b.drafted, b.accepted,
                                                                       b.verified)
    assert a.gamma_counts == b.gamma_counts and a.expected_tau == b.expected_tau
    width = len(a.per_position_verified)  # the rounds never verify a position no draft reached
    assert a.per_position_verified == b.per_position_verified[:width]
    assert not any(b.per_position_verified[width:])


@pytest.mark.parametrize(("totals", "message"), [
    (dict(drafted=3, accepted=4), "accepted 4 of 3 drafted"),
    (dict(drafted=9, accepted=4, tokens=3), "accepted 4 drafts but emitted 3 tokens"),
    (dict(drafted=9, accepted=4, per_position=(1, 3)), "per_position[1] (3) is above position 0's"),
    (dict(drafted=9, accepted=4, per_position=(4,), verify_steps=2), "above the 2 verify steps"),
    (dict(drafted=-1, accepted=0), "drafted is -1"),
    (dict(drafted=2**60, accepted=0), "drafted is 1152921504606846976"),
    (dict(drafted=1, accepted=0, per_position=(0,) * 2000), "per_position has 2000 items"),
])
def test_counts_a_server_cannot_mean_are_refused(totals: dict[str, object], message: str) -> None:
    with pytest.raises(Invalid, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        Totals(**totals, source="sglext.spec_tokens_details")  # type: ignore[arg-type]


def reading(info: BackendInfo, items: list[Round | Totals]) -> Reading:
    m = Metrics()
    for item in items:
        m.add(item)
    return Reading.of(m.snapshot(), info)


SGLANG_INFO = BackendInfo("openai", "sglang · m", 3, 0.0, exact=dict(INFERRED))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_gauge_says_exact_totals_rounds_inferred_once_totals_came(lang: str) -> None:
    alpha = next(spec for spec in GAUGES if spec.key == "alpha")
    tau = next(spec for spec in GAUGES if spec.key == "tau")
    streaming = reading(SGLANG_INFO, list(STREAMED))
    assert alpha.tag_id(streaming.info, streaming.snap) == "tag.inferred"
    closed = reading(SGLANG_INFO, [*STREAMED, SGLANG])
    assert alpha.tag_id(closed.info, closed.snap) == tau.tag_id(closed.info, closed.snap) == "tag.exact_totals"
    words = {"en": "exact totals, rounds inferred", "zh": "总数精确，轮次为推断"}[lang]
    assert note_text(alpha, closed, lang).startswith(words)
    # a backend exact per round stays "exact"; one that reports nothing but totals says so
    exact = reading(BackendInfo("openai", "x", 3, 0.0, exact=dict(EXACT)), [*STREAMED, SGLANG])
    assert alpha.tag_id(exact.info, exact.snap) == "tag.exact"
    silent = reading(BackendInfo("openai", "x", None, 0.0), [*STREAMED, SGLANG])
    assert alpha.tag_id(silent.info, silent.snap) == "tag.exact_totals"


def test_stats_json_has_a_totals_object() -> None:
    r = reading(SGLANG_INFO, [*STREAMED, SGLANG])
    stats = stats_dict(r.info, r.snap, "")
    assert stats["totals"] == {"source": "sglext", "drafted": 15, "accepted": 5, "per_position": [3, 2, 0],
                               "verify_steps": 5, "tokens": 11, "requests": 1,
                               "exact": ["acceptance", "per_position", "tau"]}
    assert (stats["drafted"], stats["accepted"], stats["acceptance_rate"]) == (15, 5, 0.5)
    assert stats["cross_check"] is None
    assert stats_dict(r.info, reading(SGLANG_INFO, list(STREAMED)).snap, "")["totals"] is None


class Scripted:
    """A backend that yields a fixed list of items (what a remote backend yields for one request)."""

    def __init__(self, items: list[StreamItem], reconciles: bool = False) -> None:
        self.items = items
        self._info = BackendInfo("openai", "scripted", 3, 0.0, exact=dict(INFERRED), reconciles=reconciles)

    @property
    def info(self) -> BackendInfo:
        return self._info

    def rounds(self, stop: threading.Event) -> Iterator[StreamItem]:
        yield from self.items

    def close(self) -> None:
        """Nothing to release."""


def test_a_session_folds_totals_and_a_reconcile_keeps_them() -> None:
    first = [plain(0), drafted(1, 3, 3)]
    closing = Totals(6, 2, (1, 1, 0), 2, 5, "x")
    later = [drafted(2, 3, 1), drafted(3, 3, 0)]
    exact = (drafted(2, 3, 0, inferred=False), drafted(3, 3, 0, inferred=False), plain(4))
    session = Session(Scripted([*first, closing, *later, Reconcile(2, exact)], reconciles=True))
    shown = list(session.run_headless())
    assert [r.index for r in shown] == [0, 1, 2, 3]  # totals are no round
    s = session.metrics.snapshot()
    # the first request as its totals said; then the reconciled rounds as they are
    assert (s.rounds, s.tokens, s.drafted, s.accepted) == (3 + 3, 5 + 3, 6 + 6, 2)
    assert s.totals == closing and s.exact_totals == frozenset()


def test_totals_round_trip_through_a_recording(tmp_path: Path) -> None:
    file = tmp_path / "run.jsonl"
    recorder = Recorder(file, header_record(backend={"name": "openai", "label": "sglang · m",
                                                     "exact": dict(INFERRED)}))
    for item in [*STREAMED, SGLANG]:
        recorder(item)
    recorder.close()
    assert '"type": "totals"' in file.read_text().splitlines()[-1]
    items = [item for item in read_recording(file) if isinstance(item, Totals)]
    assert items == [SGLANG]
    replayed = Session(ReplayBackend(file, speed=0.0))
    list(replayed.run_headless())
    assert replayed.metrics.snapshot() == reading(SGLANG_INFO, [*STREAMED, SGLANG]).snap


def test_old_recordings_still_replay_and_hold_no_totals(tmp_path: Path) -> None:
    old = tmp_path / "v3.jsonl"
    lines = [header_record(backend={"name": "sim", "label": "x"}) | {"version": 3},
             {"type": "round", **plain(0).to_dict()}]
    old.write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = Session(ReplayBackend(old, speed=0.0))
    assert len(list(session.run_headless())) == 1 and session.metrics.snapshot().totals is None
    # a totals line in a file of a version before totals is not read as one
    old.write_text(old.read_text() + json.dumps({"type": "totals", **SGLANG.to_dict()}) + "\n")
    with pytest.raises(RecordingError, match="line 3: unknown line type 'totals'"):
        list(read_recording(old))


SETTINGS = RequestSettings(model="m", prompt="p", raw=False, temperature=0.0, seed=0, max_tokens=64, gamma=3)


def test_sglang_spec_tokens_details_end_the_request_as_totals() -> None:
    dialect = SglangDialect(SETTINGS, gamma=3, speculating=True)
    for k, (text, done) in enumerate([("a", 1), ("bcde", 5), ("fgh", 8)]):
        dialect.feed({"choices": [{"index": 0, "delta": {"content": text}}], "usage": {"completion_tokens": done}},
                     float(k))
    assert dialect.request_totals() is None  # not before the request finished
    dialect.feed({"choices": [], "sglext": {"spec_tokens_details": {
        "spec_verify_ct": 3, "spec_num_correct_drafts": 4, "spec_num_proposed_drafts": 9,
        "spec_correct_drafts_histogram": [1, 0, 2, 0]}}}, 3.0)
    assert dialect.request_totals() == Totals(9, 4, (2, 2, 0), 3, 8, "sglext.spec_tokens_details")


def test_sglang_generate_meta_info_without_counts_infers_what_it_can() -> None:
    raw = RequestSettings(model="m", prompt="p", raw=True, temperature=0.0, seed=0, max_tokens=64, gamma=2)
    dialect = SglangDialect(raw, gamma=2, speculating=True)
    meta = {"completion_tokens": 7, "finish_reason": {"type": "length"}, "spec_verify_ct": 3,
            "spec_correct_drafts_histogram": [0, 2, 1]}  # no accepted or proposed counts
    dialect.feed({"text": "abcdefg", "meta_info": meta}, 0.0)
    assert dialect.request_totals() == Totals(6, 4, (3, 1), 3, 7, "meta_info")  # 3 steps × γ 2; 2·1 + 1·2
    dialect = SglangDialect(raw, gamma=None, speculating=True)
    dialect.feed({"text": "a", "meta_info": {**meta, "spec_correct_drafts_histogram": None}}, 0.0)
    assert dialect.request_totals() is None  # neither accepted nor drafted known


def test_vllm_request_counts_without_per_step_lists_are_totals() -> None:
    dialect = VllmDialect(SETTINGS, gamma=3, speculating=True)
    dialect.feed({"choices": [{"index": 0, "delta": {"content": "ab"}, "token_ids": [1, 2]}],
                  "usage": {"completion_tokens": 2}}, 0.0)
    dialect.feed({"choices": [], "usage": {"completion_tokens": 2}, "metrics": {"speculative_decoding": {
        "num_spec_steps": 1, "num_draft_tokens": 3, "num_accepted_draft_tokens": 0}}}, 1.0)
    dialect.finish(2.0)
    assert dialect.request_totals() == Totals(3, 0, None, 1, 2, "speculative_decoding")
    detailed = VllmDialect(SETTINGS, gamma=3, speculating=True)  # per-step lists: exact rounds, no totals
    detailed.feed({"choices": [], "metrics": {"speculative_decoding": {
        "num_spec_steps": 1, "num_draft_tokens": 3, "num_accepted_draft_tokens": 0, "per_step_accepted": [0]}}},
        0.0)
    assert detailed.request_totals() is None


def test_the_four_dialects_share_the_base_class_defaults() -> None:
    for dialect in (GenericDialect(SETTINGS), LlamaServerDialect(SETTINGS), VllmDialect(SETTINGS, 3, True),
                    SglangDialect(SETTINGS, 3, True)):
        assert isinstance(dialect, Dialect)
        assert dialect.exact_rounds() is None and dialect.request_totals() is None
    for cls in (GenericDialect, LlamaServerDialect, VllmDialect, SglangDialect):
        assert "exact_rounds" not in vars(cls) or cls is VllmDialect
        assert "missing_statistics" not in vars(cls) or cls is LlamaServerDialect


AGREES = CrossChecked("/metrics", 7, 2, (0, 0, 0), (0, 0, 0, 0))
DIFFERS = CrossChecked("/metrics", 7, 2, (0, -1, 1), (0, 1) + (0,) * 9)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cross_check_says_agrees_or_by_how_much_it_differs(lang: str) -> None:
    assert AGREES.agrees and not DIFFERS.agrees
    assert check_text(AGREES, lang) == fill("note.cross_check_agrees", lang, drafted=7, accepted=2)
    assert check_text(DIFFERS, lang) == fill("note.cross_check_differs", lang, drafts="0", drafted="−1",
                                             accepted="+1", positions="0 +1 0 0 0 0 0 0 …")
    info = BackendInfo("openai", "x", 3, 0.0)
    assert notes_text(info, lang) == "" and notes_text(info, lang, AGREES) == check_text(AGREES, lang)


def test_a_cross_check_is_folded_recorded_and_replayed(tmp_path: Path) -> None:
    m = Metrics()
    m.add(AGREES)
    m.add(DIFFERS)
    assert m.snapshot().cross_check == DIFFERS  # the last request's
    assert CrossChecked.from_dict(DIFFERS.to_dict()) == DIFFERS
    assert DIFFERS.to_dict()["differs_by"] == {"drafts": 0, "drafted": -1, "accepted": 1,
                                               "per_position": [0, 1] + [0] * 9}
    file = tmp_path / "llama.jsonl"
    recorder = Recorder(file, header_record(backend={"name": "openai", "label": "llama-server · m"}))
    for item in [drafted(0, 3, 1, inferred=False), DIFFERS]:
        recorder(item)
    recorder.close()
    session = Session(ReplayBackend(file, speed=0.0))
    list(session.run_headless())
    assert session.metrics.cross_check == DIFFERS
    r = Reading.of(session.metrics.snapshot(), session.backend.info)
    assert stats_dict(r.info, r.snap, "")["cross_check"] == DIFFERS.to_dict()


class StatsAtTheEnd(GenericDialect):
    """All an engine that reports only end-of-request totals needs (LM Studio's REST API names its
    final `stats` so): the generic reading of the text, and the totals from the last chunk."""

    name = "stats-at-the-end"
    _totals: Totals | None = None

    def feed(self, event: dict[str, Any], t: float) -> list[Round]:
        stats = event.get("stats")
        if isinstance(stats, dict):
            self._totals = Totals(stats["total_draft_tokens_count"], stats["accepted_draft_tokens_count"],
                                  tokens=usage_tokens(event), source="stats")
        return super().feed(event, t)

    def request_totals(self) -> Totals | None:
        return self._totals


def test_an_engine_that_reports_only_totals_needs_only_a_dialect_that_returns_them() -> None:
    dialect = StatsAtTheEnd(SETTINGS)
    chunks = [{"choices": [{"index": 0, "delta": {"content": f" w{k}"}}]} for k in range(9)]
    chunks.append({"choices": [], "usage": {"completion_tokens": 9},
                   "stats": {"total_draft_tokens_count": 12, "accepted_draft_tokens_count": 5}})
    rounds = [r for k, event in enumerate(chunks) for r in dialect.feed(event, float(k))]
    totals = dialect.request_totals()
    assert totals is not None
    session = Session(Scripted([*rounds, *dialect.finish(9.0), totals]))
    list(session.run_headless())
    s = session.metrics.snapshot()
    assert (s.rounds, s.tokens, s.drafted, s.accepted) == (4, 9, 12, 5)  # 9 chunks, 5 of them accepted drafts
    tau, alpha = (next(spec for spec in GAUGES if spec.key == key) for key in ("tau", "alpha"))
    nothing_per_round = BackendInfo("openai", "x", None, 0.0, exact={"tokens_per_second": True})
    assert tau.tag_id(nothing_per_round, s) == "tag.exact_totals"
    assert alpha.tag_id(nothing_per_round, s) == "tag.not_reported"  # without per-position counts α is a bound
