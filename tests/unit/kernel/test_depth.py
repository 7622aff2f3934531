"""Depth that varies (issue 21, item 2): per-position acceptance conditional on the position having been
drafted, rounds behind each bar, rounds attributed to their drafter (untrusted names from outside)."""

from __future__ import annotations

import pickle
import threading
from pathlib import Path

import pytest

from specview.backends.sim.backend import SimBackend
from specview.boundary.bounds import Invalid
from specview.catalog.presets import get_preset
from specview.kernel.backend import BackendInfo
from specview.kernel.drafters import MAX_DRAFTER_NAME, MAX_DRAFTERS, OTHER
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.gauges import position_texts
from specview.kernel.metrics import Metrics
from specview.report.run_json import stats_dict
from specview.tui.depth_texts import drafter_lines

A, R, C, B = TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS


def chain(index: int, gamma: int, accepted: int, drafter: str = "") -> Round:
    tokens = [TokenEvent(None, "a", A) for _ in range(accepted)]
    tokens += [TokenEvent(None, "r", R), TokenEvent(None, "c", C)] if accepted < gamma else [TokenEvent(None, "b", B)]
    return Round(index, gamma, tuple(tokens), 0.01, 0.02, float(index), drafter=drafter)


def test_rounds_that_stopped_early_are_not_rejections_at_the_positions_they_did_not_draft() -> None:
    metrics = Metrics()
    for i in range(100):  # stopped after one draft (a p_min cut, a short match): all passed
        metrics.add(chain(2 * i, 1, 1))
        metrics.add(chain(2 * i + 1, 3, 1))  # three drafted, the second refused
    snap = metrics.snapshot()
    assert snap.per_position_verified == (200, 100, 0)
    assert snap.per_position_acceptance == (1.0, 0.0, None)
    # counted over every round instead, position 2 would read 0 of 200 and position 3 would exist
    bars = position_texts(snap.per_position_acceptance, snap.per_position_verified)
    assert [t for _, t in bars] == ["1.00 (200)", "0.00 (100)", "— (0)"]


def test_a_variable_depth_preset_counts_only_drafted_positions() -> None:
    preset = get_preset("dspark", Path("/nonexistent"))
    metrics, drafted_at_least = Metrics(), [0] * (preset.gamma + 1)
    for rnd in SimBackend(preset, seed=5, speed=0, max_rounds=6000).rounds(threading.Event()):
        if isinstance(rnd, Round):
            metrics.add(rnd)
            for k in range(rnd.drafted + 1):
                drafted_at_least[k] += 1
    snap = metrics.snapshot()
    for k, verified in enumerate(snap.per_position_verified):
        assert verified <= drafted_at_least[k + 1]  # only rounds that drafted position k + 1
    declared = preset.acceptance_at(0.0)
    for k in range(3):  # conditional: the preset's per-position value, not diluted by short rounds
        assert snap.per_position_acceptance[k] == pytest.approx(declared[k], abs=0.03)


def test_rounds_are_attributed_to_their_drafter_and_add_up() -> None:
    metrics = Metrics()
    for i in range(300):
        metrics.add(chain(i, 4, 4 if i % 3 else 1, "ngram") if i % 2 else chain(i, 2, i % 3, "gemma-draft"))
    metrics.add(Round(300, 0, (TokenEvent(None, "p", TokenStatus.PLAIN),), None, 0.02, 300.0))
    snap = metrics.snapshot()
    by_name = {d.name: d for d in snap.drafters}
    assert set(by_name) == {"ngram", "gemma-draft"}  # a plain round is nobody's
    assert sum(d.rounds for d in snap.drafters) == metrics.drafting_rounds == 300
    assert sum(d.drafted for d in snap.drafters) == snap.drafted
    assert sum(d.accepted for d in snap.drafters) == snap.accepted
    assert sum(d.verified for d in snap.drafters) == snap.verified
    ngram, model = by_name["ngram"], by_name["gemma-draft"]
    assert ngram.alpha is not None and model.alpha is not None and ngram.alpha > model.alpha
    assert ngram.tau == pytest.approx(ngram.emitted / ngram.rounds)
    stats = stats_dict(BackendInfo("llama", "x", 4, 0.0), snap, "")
    assert [d["drafter"] for d in stats["by_drafter"]] == ["gemma-draft", "ngram"]
    assert stats["gamma_counts"] == {"0": 1, "2": 150, "4": 150}
    lines = drafter_lines(snap, "en").splitlines()
    assert len(lines) == 2 and lines[1].startswith("ngram: α")


def test_a_drafter_name_from_outside_is_sanitized_bounded_and_kept_through_recording_and_pickle() -> None:
    hostile = "\x1b]52;c;ZXZpbA==\x07\x1b[2J" + "x" * 10_000
    data = chain(0, 2, 1).to_dict() | {"drafter": hostile}
    rnd = Round.from_dict(data)
    assert "\x1b" not in rnd.drafter and "\x07" not in rnd.drafter
    assert len(rnd.drafter) == MAX_DRAFTER_NAME and rnd.drafter.startswith("␛]52")
    assert Round.from_dict(rnd.to_dict()).drafter == rnd.drafter
    assert pickle.loads(pickle.dumps(rnd)).drafter == rnd.drafter  # the flat-out producer's child process
    assert "drafter" not in chain(0, 2, 1).to_dict()  # older readers see the rounds they know
    with pytest.raises(Invalid, match=r"round\.drafter must be a string"):
        Round.from_dict(data | {"drafter": 5})
    with pytest.raises(Invalid, match=r"round\.drafted"):  # a γ beyond any bound
        Round.from_dict(data | {"drafted": 10**9})


def test_a_flood_of_drafter_names_keeps_a_bounded_table() -> None:
    metrics = Metrics()
    for i in range(5000):
        metrics.add(chain(i, 2, 1, f"drafter-{i}"))
    snap = metrics.snapshot()
    assert len(snap.drafters) == MAX_DRAFTERS + 1 and snap.drafters[-1].name == OTHER
    assert sum(d.rounds for d in snap.drafters) == 5000
