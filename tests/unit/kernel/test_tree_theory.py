"""A tree's theory counts the verify cost of all its nodes (v(nodes)), not of its depth (v(depth)),
checked against a hand computation on a run of 3x2 tree rounds."""

from __future__ import annotations

import pytest

from specview.kernel.events import Basis, Calibration, Round, TokenEvent, TokenStatus
from specview.kernel.metrics import Metrics
from specview.kernel.overlay import overlay
from specview.kernel.tree_cost import tree_nodes, verify_drafts
from specview.kernel.tree_shape import TreeShape

A, R, C, B, D = (TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS,
                 TokenStatus.DISCARDED)
COSTS = (0.010, 0.012, 0.015, 0.020, 0.026, 0.032, 0.040)  # seconds of a k-token forward, k = 1…7
Q_TOP = ((1, 2, 3), (4, 5, 6))


def _full(index: int) -> Round:
    """A 3x2 tree round whose chain passed: path a, b, bonus; lost the 2 siblings at each depth."""
    tokens = (TokenEvent(1, "a", A, 0, 0.9, 0.8), TokenEvent(4, "b", A, 1, 0.9, 0.8), TokenEvent(7, "c", B, 2, 0.9))
    lost = tuple(TokenEvent(t, "x", R, k, 0.05, 0.1) for k, t in ((0, 2), (0, 3), (1, 5), (1, 6)))
    return Round(index, 2, tokens, 0.004, 0.040, float(index), lost=lost, q_top=Q_TOP)


def _stopped(index: int) -> Round:
    """A 3x2 tree round rejected at depth 1: the chain's a rejected (shown), its 2 siblings rejected,
    a's children (the depth-2 chain token and its 2 siblings) discarded below it."""
    tokens = (TokenEvent(1, "a", R, 0, 0.1, 0.8), TokenEvent(9, "z", C, 0, 0.7))
    lost = (TokenEvent(2, "x", R, 0, 0.05, 0.1), TokenEvent(3, "y", R, 0, 0.05, 0.1),
            *(TokenEvent(t, "w", D, 1, None, 0.2) for t in (4, 5, 6)))
    return Round(index, 2, tokens, 0.004, 0.040, float(index), lost=lost, q_top=Q_TOP)


def test_a_tree_round_verifies_all_its_nodes() -> None:
    shape = TreeShape(3, 2)
    assert tree_nodes(_full(0)) == tree_nodes(_stopped(1)) == shape.verify_drafts == 6
    assert shape.draft_steps == 2
    assert verify_drafts(2, ((2, 6.0),)) == 6 and verify_drafts(2, ()) == 2  # a chain: its γ


def test_the_tree_speedup_is_tau_over_depth_c_plus_v_of_its_nodes() -> None:
    metrics = Metrics()
    metrics.calibrate(Calibration(Basis.MEASURED, 0.010, COSTS))
    for i in range(4):
        metrics.add(_full(2 * i))
        metrics.add(_stopped(2 * i + 1))
    snap = metrics.snapshot()
    over = overlay(snap)
    # by hand: α = accepted ÷ verified = 8 ÷ (4·2 + 4·1) = 2/3; τ(α, 2) = 1 + α + α² = 19/9;
    # c = draft time per depth ÷ 1-token forward = (0.004 / 2) / 0.010 = 0.2;
    # v(nodes) = cost(6 + 1 tokens) ÷ cost(1) = 0.040 / 0.010 = 4.0 (v(depth) would be 0.015 / 0.010 = 1.5)
    alpha, c = 2 / 3, 0.2
    tau = 1 + alpha + alpha**2
    assert snap.acceptance_rate == pytest.approx(alpha)
    assert snap.draft_cost == pytest.approx(c)
    assert over.verify_ratio == pytest.approx(4.0)
    assert over.speedup_theory == pytest.approx(tau / (2 * c + 4.0))  # 0.4798…
    assert over.speedup_theory != pytest.approx(tau / (2 * c + 1.5))  # the old, depth-based 1.107…: optimistic


def test_a_chain_run_keeps_v_of_its_gamma() -> None:
    metrics = Metrics()
    metrics.calibrate(Calibration(Basis.MEASURED, 0.010, COSTS))
    chain = Round(0, 2, (TokenEvent(1, "a", A, 0, 0.9, 0.8), TokenEvent(4, "b", A, 1, 0.9, 0.8),
                         TokenEvent(7, "c", B, 2, 0.9)), 0.004, 0.015, 0.0, q_top=Q_TOP)
    metrics.add(chain)
    snap = metrics.snapshot()
    assert snap.tree_nodes == ()
    assert overlay(snap).verify_ratio == pytest.approx(1.5)
