"""The measured speedup's baseline: calibrations, a run's own plain rounds, or none at all."""

from __future__ import annotations

import threading

import pytest

from specview.kernel.events import Calibration, Reconcile, Round, TokenEvent, TokenStatus
from specview.kernel.metrics import Metrics
from specview.kernel.overlay import MIN_PLAIN_ROUNDS, PLAIN_ROUNDS, overlay
from specview.kernel.session import Session
from specview.kernel.theory import expected_tau

A, R, C, B, P = (TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS,
                 TokenStatus.PLAIN)


def spec_round(index: int, t_wall: float, *, accepted: int = 3, gamma: int = 3, t_draft: float = 0.003,
               t_verify: float = 0.024) -> Round:
    statuses = [A] * accepted + ([B] if accepted == gamma else [R, C])
    tokens = tuple(TokenEvent(i, "x", s, i) for i, s in enumerate(statuses))
    return Round(index, gamma, tokens, t_draft, t_verify, t_wall)


def plain_round(index: int, t_wall: float, *, inferred: bool = False) -> Round:
    return Round(index, 0, (TokenEvent(None, "x", P, inferred=inferred),), None, None, t_wall)


def test_a_measured_calibration_is_the_baseline_and_c_uses_the_one_token_forward() -> None:
    m = Metrics()
    # a CPU: the 4-token verify costs 2.4 one-token forwards
    m.add(Calibration("measured", 0.0105, (0.010, 0.016, 0.020, 0.024), context=40))
    for i in range(10):
        m.add(spec_round(i, 1.0 + 0.027 * (i + 1), accepted=3 if i % 2 else 1))
    snap = m.snapshot()
    # c = draft step ÷ 1-token forward (Leviathan), not ÷ the verify
    assert snap.draft_cost == pytest.approx((0.003 / 3) / 0.010)
    over = overlay(snap)
    assert over.speedup_basis == "measured"
    assert over.speedup_measured == pytest.approx(snap.tokens_per_second * 0.0105)
    assert over.plain_tokens_per_second == pytest.approx(1 / 0.0105)
    assert over.verify_ratio == pytest.approx(2.4)
    alpha = snap.acceptance_rate
    assert alpha is not None
    assert over.speedup_theory == pytest.approx(expected_tau(alpha, 3) / (3 * 0.1 + 2.4))
    # the old formula (tokens/s × verify time) would claim far more than the measured speedup
    assert snap.tokens_per_second * 0.024 > 2 * over.speedup_measured
    # best γ is searched only where v was measured
    assert over.best_gamma is not None and over.best_gamma <= 3


def test_calibrations_are_averaged_over_the_run() -> None:
    m = Metrics()
    m.add(Calibration("measured", 0.010, (0.010, 0.020), context=10))
    m.add(Calibration("measured", 0.014, (0.012, 0.024, 0.030), context=300))
    cal = m.snapshot().calibration
    assert cal is not None and cal.basis == "measured" and cal.context == 300
    assert cal.plain_s == pytest.approx(0.012)
    assert cal.verify_costs_s == pytest.approx((0.011, 0.022, 0.030))
    # a basis of another kind replaces what came before
    m.add(Calibration("given", 0.02))
    cal = m.snapshot().calibration
    assert cal is not None and (cal.basis, cal.plain_s, cal.verify_costs_s) == ("given", 0.02, ())


def test_without_any_baseline_the_speedup_is_unknown_not_assumed() -> None:
    m = Metrics()
    for i in range(20):
        m.add(spec_round(i, 1.0 + 0.03 * (i + 1), t_draft=None, t_verify=None))  # type: ignore[arg-type]
    over = overlay(m.snapshot())
    assert over.speedup_measured is None and over.speedup_basis is None


def test_the_runs_own_plain_rounds_stand_in_for_a_baseline() -> None:
    m = Metrics()
    t = 1.0
    for i in range(MIN_PLAIN_ROUNDS + 1):  # the first round carries the prompt and is not timed
        t += 0.02
        m.add(plain_round(2 * i, t))
        t += 0.05
        m.add(spec_round(2 * i + 1, t, t_draft=None, t_verify=None))  # type: ignore[arg-type]
    snap = m.snapshot()
    assert snap.plain_rounds == MIN_PLAIN_ROUNDS and snap.plain_round_s == pytest.approx(0.02)
    over = overlay(snap)
    assert over.speedup_basis == PLAIN_ROUNDS
    assert over.speedup_measured == pytest.approx(snap.tokens_per_second * 0.02)


def test_plain_rounds_whose_status_was_inferred_are_no_baseline() -> None:
    m = Metrics()
    for i in range(3 * MIN_PLAIN_ROUNDS):
        m.add(plain_round(i, 1.0 + 0.02 * i, inferred=True))
    assert m.snapshot().plain_rounds == 0
    assert overlay(m.snapshot()).speedup_basis is None


class _Script:
    """A backend that yields a fixed list of items."""

    def __init__(self, items: list[Round | Calibration | Reconcile], *, reconciles: bool = False) -> None:
        from specview.kernel.backend import BackendInfo

        self.items = items
        self.info = BackendInfo(backend="script", label="script", gamma=3, temperature=0.0, reconciles=reconciles)

    def rounds(self, stop: threading.Event) -> object:
        yield from self.items

    def close(self) -> None:
        pass


def test_a_reconcile_keeps_the_runs_calibration() -> None:
    rounds = [spec_round(i, 1.0 + 0.03 * (i + 1)) for i in range(4)]
    cal = Calibration("given", 0.05)
    backend = _Script([cal, *rounds, Reconcile(0, tuple(rounds[:2]))], reconciles=True)
    session = Session(backend)  # type: ignore[arg-type]
    list(session.run_headless())
    snap = session.metrics.snapshot()
    assert snap.rounds == 2 and snap.calibration == Calibration("given", 0.05, (), None)


def test_a_calibration_never_uses_up_a_single_step() -> None:
    rounds = [spec_round(i, 1.0 + 0.03 * (i + 1)) for i in range(3)]
    backend = _Script([Calibration("measured", 0.01, (0.01, 0.02)), rounds[0], Calibration("measured", 0.01),
                       rounds[1], rounds[2]])
    session = Session(backend)  # type: ignore[arg-type]
    session.pause()
    session.start()
    session.step()
    for _ in range(200):
        drained = session.drain()
        if drained.rounds:
            break
        threading.Event().wait(0.01)
    assert [r.index for r in drained.rounds] == [0]
    assert session.metrics.calibrations == 1
    session.step()
    got: list[int] = []
    for _ in range(200):
        got += [r.index for r in session.drain().rounds]
        if got:
            break
        threading.Event().wait(0.01)
    assert got == [1] and session.metrics.calibrations == 2
    session.stop()
