"""Metrics fold over hand-made rounds."""

from __future__ import annotations

import pytest

from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.metrics import Metrics
from specview.kernel.theory import expected_tau

A, R, C, B, P = (TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS,
                 TokenStatus.PLAIN)


def rnd(index: int, drafted: int, statuses: list[TokenStatus], t_wall: float,
        t_draft: float | None = 0.003, t_verify: float | None = 0.010) -> Round:
    tokens = tuple(TokenEvent(i, f"t{i}", s, i if s is not P else None) for i, s in enumerate(statuses))
    return Round(index, drafted, tokens, t_draft, t_verify, t_wall)


def test_fold_over_hand_made_rounds() -> None:
    m = Metrics()
    m.add(rnd(0, 3, [A, A, A, B], t_wall=1.013))          # all pass: 4 tokens, 3 verified, 3 accepted
    m.add(rnd(1, 3, [A, R, C], t_wall=1.026))             # reject at position 2: 2 tokens, 2 verified
    m.add(rnd(2, 3, [R, C], t_wall=1.039))                # reject at position 1: 1 token, 1 verified
    s = m.snapshot()
    assert (s.rounds, s.tokens, s.drafted, s.accepted, s.verified) == (3, 7, 9, 4, 6)
    assert s.acceptance_rate == pytest.approx(4 / 6)
    assert s.draft_yield == pytest.approx(4 / 9)
    assert s.tau == pytest.approx(7 / 3)
    assert s.per_position_verified == (3, 2, 1)
    assert s.per_position_acceptance == (pytest.approx(2 / 3), pytest.approx(1 / 2), pytest.approx(1.0))
    assert s.expected_tau == pytest.approx(expected_tau(4 / 6, 3))
    # c = (per-draft time) / (verify time) = (0.003 / 3) / 0.010
    assert s.draft_cost == pytest.approx(0.1)
    # The first round started at 1.013 - 0.013 = 1.0; 7 tokens over 0.039 s.
    assert s.elapsed_s == pytest.approx(0.039)
    assert s.tokens_per_second == pytest.approx(7 / 0.039)
    # the same fold counts in a server's /metrics terms (the remote backend's cross-check uses it)
    m.add(rnd(3, 0, [P], t_wall=1.050))
    assert (m.drafting_rounds, m.max_drafted, m.accepted_by_position) == (3, 3, (2, 1, 1))


def test_window_forgets_old_rounds() -> None:
    m = Metrics(window=2)
    m.add(rnd(0, 2, [R, C], 1.0))
    m.add(rnd(1, 2, [A, A, B], 2.0))
    m.add(rnd(2, 2, [A, A, B], 3.0))
    s = m.snapshot()
    assert s.window_acceptance_rate == 1.0
    assert s.window_tau == 3.0
    assert s.acceptance_rate == pytest.approx(4 / 5)
    assert s.window_tokens_per_second == pytest.approx(3 / 1.0)


def test_plain_rounds_have_tau_one_and_no_alpha() -> None:
    m = Metrics()
    for i in range(5):
        m.add(rnd(i, 0, [P], t_wall=0.01 * (i + 1), t_draft=None, t_verify=0.01))
    s = m.snapshot()
    assert s.tau == 1.0
    assert s.acceptance_rate is None and s.expected_tau is None and s.draft_cost is None
    assert s.per_position_acceptance == ()
    assert s.tokens_per_second == pytest.approx(100.0)


def test_round_serialises_both_ways() -> None:
    r = rnd(4, 2, [A, R, C], 9.5)
    assert Round.from_dict(r.to_dict()) == r
