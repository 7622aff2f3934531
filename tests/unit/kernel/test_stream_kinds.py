"""Stream items are told apart in one place (kernel/stream_kinds.py): every kind has an entry with
every column, each goes to the fold method, buffer count, step rule, mask rule, recording line and
replay pace of its kind."""

from __future__ import annotations

import dataclasses
import threading
from typing import get_args

import pytest

from specview.boundary.stream_mask import RoundMasker
from specview.kernel.events import (
    Basis,
    Calibration,
    Reconcile,
    Round,
    StreamItem,
    TokenEvent,
    TokenStatus,
)
from specview.kernel.gamma_choice import GammaChoice, Why
from specview.kernel.masked_items import masked
from specview.kernel.metrics import Metrics
from specview.kernel.session import Session
from specview.kernel.stream_kinds import KINDS, RECORDED, ItemKind, fold_item, item_tokens, kind_of
from specview.kernel.totals import CrossChecked, Totals

SECRET = "sk-THISISASECRETKEY123"


def _round(index: int, text: str = "a") -> Round:
    """A round that drafted one token, accepted it and adds `text` as its own."""
    tokens = (TokenEvent(1, "b", TokenStatus.ACCEPTED, 0), TokenEvent(2, text, TokenStatus.BONUS, 1))
    return Round(index, 1, tokens, None, None, float(index))


ROUND = _round(0)
ITEMS: dict[type, StreamItem] = {
    Round: ROUND,
    Reconcile: Reconcile(0, (_round(0), _round(1))),
    Calibration: Calibration(Basis.ASSUMED, 0.01, (0.01, 0.011)),
    Totals: Totals(drafted=4, accepted=2, tokens=6),
    CrossChecked: CrossChecked("/metrics", 4, 2),
    GammaChoice: GammaChoice(round=8, gamma=3, why=Why.PAYS),
}
# what each kind is, written out here: a kind whose entry says otherwise fails below
METHOD = {Round: "add_round", Reconcile: "reconcile", Calibration: "calibrate", Totals: "close_request",
          CrossChecked: "cross_checked", GammaChoice: "gamma_chosen"}
STEPPED = {Round, Reconcile}  # a single step lets one through; the rest pass between steps
# a recording's line type for each kind (GammaChoice: a live decision, not recorded), and the version it came in
RECORD_WORD = {Round: ("round", 1), Reconcile: ("reconcile", 2), Calibration: ("calibration", 3),
               Totals: ("totals", 4), CrossChecked: ("check", 4), GammaChoice: None}


class _Recorded:
    """A StreamFold that writes down which method got what."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def add_round(self, rnd: Round) -> None:
        self.calls.append(("add_round", rnd))

    def reconcile(self, item: Reconcile) -> None:
        self.calls.append(("reconcile", item))

    def calibrate(self, cal: Calibration) -> None:
        self.calls.append(("calibrate", cal))

    def close_request(self, totals: Totals) -> None:
        self.calls.append(("close_request", totals))

    def cross_checked(self, item: CrossChecked) -> None:
        self.calls.append(("cross_checked", item))

    def gamma_chosen(self, item: GammaChoice) -> None:
        self.calls.append(("gamma_chosen", item))


def test_every_stream_item_type_has_one_entry() -> None:
    assert set(KINDS) == set(get_args(StreamItem)) == set(ITEMS) == set(METHOD) == set(RECORD_WORD)


@pytest.mark.parametrize("kind", get_args(StreamItem), ids=lambda k: k.__name__)
def test_every_stream_item_type_fills_every_column(kind: type) -> None:
    """Every column of the table is filled for every kind in the stream union (only `recorded` may
    say None, for a kind that is never recorded): a new kind, or a new column, is one entry each."""
    entry = KINDS.get(kind)
    assert isinstance(entry, ItemKind), f"{kind.__name__} has no entry in stream_kinds.KINDS"
    for column in dataclasses.fields(ItemKind):
        value = getattr(entry, column.name)
        assert value is not None or column.name == "recorded", f"{kind.__name__} lacks {column.name}"
    for column in ("fold", "tokens", "mask", "paced_by"):  # each callable takes the kind's item
        assert callable(getattr(entry, column)), f"{kind.__name__}.{column} is not callable"


@pytest.mark.parametrize("kind", list(ITEMS), ids=lambda k: k.__name__)
def test_each_recorded_kind_has_its_line_and_reads_back_as_it_was(kind: type) -> None:
    item, recorded = ITEMS[kind], kind_of(ITEMS[kind]).recorded
    assert (None if recorded is None else (recorded.word, recorded.since)) == RECORD_WORD[kind]
    if recorded is not None:
        assert RECORDED[recorded.word] is recorded
        assert recorded.decode({"type": recorded.word, **item.to_dict()}) == item


@pytest.mark.parametrize("kind", list(ITEMS), ids=lambda k: k.__name__)
def test_a_replay_paces_a_round_by_itself_and_passes_the_rest_at_once(kind: type) -> None:
    item = ITEMS[kind]
    assert kind_of(item).paced_by(item) is (item if kind is Round else None)


@pytest.mark.parametrize("kind", list(ITEMS), ids=lambda k: k.__name__)
def test_each_item_goes_to_the_fold_method_of_its_kind(kind: type) -> None:
    fold = _Recorded()
    fold_item(fold, ITEMS[kind])
    assert fold.calls == [(METHOD[kind], ITEMS[kind])]


@pytest.mark.parametrize("kind", list(ITEMS), ids=lambda k: k.__name__)
def test_each_item_counts_its_tokens_and_steps_by_its_kind(kind: type) -> None:
    item = ITEMS[kind]
    rounds: list[Round] = [item] if isinstance(item, Round) else []
    if isinstance(item, Reconcile):
        rounds = list(item.rounds)
    assert item_tokens(item) == sum(len(r.tokens) + len(r.discarded) + len(r.lost) for r in rounds)
    assert kind_of(item).stepped is (kind in STEPPED)


def test_anything_else_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match="not a stream item: str"):
        fold_item(_Recorded(), "a round?")  # type: ignore[arg-type]


def test_the_masker_releases_held_rounds_before_what_closes_them() -> None:
    """A round that may begin a secret is held; totals or a reconcile release it first (masked), a
    calibration passes at once."""
    masker = RoundMasker([SECRET])
    begins = _round(0, "sk-THIS")
    assert masked(masker, begins) == []  # held: it may begin the secret
    cal = ITEMS[Calibration]
    assert masked(masker, cal) == [cal]
    totals = ITEMS[Totals]
    assert masked(masker, totals) == [begins, totals]
    secret = _round(1, SECRET)
    out = masked(masker, Reconcile(1, (secret,)))
    assert len(out) == 1 and isinstance(out[0], Reconcile) and SECRET not in out[0].rounds[0].text
    assert masked(None, secret) == [secret]


def test_the_metrics_fold_every_kind_but_a_reconcile() -> None:
    metrics = Metrics()
    for kind in (Round, Calibration, GammaChoice, CrossChecked, Totals):
        metrics.add(ITEMS[kind])  # type: ignore[arg-type]
    snap = metrics.snapshot()
    assert (snap.rounds, snap.calibrations, snap.gamma_choices, snap.cross_check, snap.totals_requests) == (
        4, 1, (ITEMS[GammaChoice],), ITEMS[CrossChecked], 1)  # 6 tokens - 2 accepted: 4 rounds
    with pytest.raises(TypeError, match="Session"):
        fold_item(metrics, ITEMS[Reconcile])


class _Said:
    """A backend that says a little besides its rounds."""

    class info:  # read as `backend.info.<field>`
        reconciles = False
        virtual_clock = True

    def __init__(self, items: list[StreamItem]) -> None:
        self.items = items

    def rounds(self, stop: threading.Event) -> list[StreamItem]:
        return self.items

    def close(self) -> None:
        pass


def test_the_session_folds_every_kind_headless_and_yields_the_rounds() -> None:
    items = [ITEMS[Calibration], ROUND, ITEMS[GammaChoice], _round(1), ITEMS[CrossChecked]]
    session = Session(_Said(items))  # type: ignore[arg-type]
    assert list(session.run_headless()) == [ROUND, _round(1)]
    snap = session.metrics.snapshot()
    assert (snap.rounds, snap.calibrations, snap.gamma_choices, snap.cross_check) == (
        2, 1, (ITEMS[GammaChoice],), ITEMS[CrossChecked])
    assert session.calibrations == (ITEMS[Calibration],)
