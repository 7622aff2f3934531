"""The token inspector tells what decided each token, per status (issue point 3), in both languages."""

from __future__ import annotations

import pytest

from specview.features.live.inspector import describe
from specview.kernel.events import TokenEvent, TokenStatus

A, R, C, B, P, D, U = (TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS,
                       TokenStatus.PLAIN, TokenStatus.DISCARDED, TokenStatus.UNDECIDED)


def test_an_accepted_draft_shows_the_test_it_passed() -> None:
    lucky = describe(TokenEvent(1, " sea", A, 0, 0.3, 0.6, u=0.41))
    assert "p 0.300 · q 0.600 · min(1, p/q) 0.500 · u 0.410 < min(1, p/q)" in lucky
    sure = describe(TokenEvent(1, " sea", A, 0, 0.7, 0.6))
    assert "min(1, p/q) 1.000" in sure and "p ≥ q: kept without a draw" in sure


def test_a_rejected_draft_shows_the_draw_that_refused_it() -> None:
    line = describe(TokenEvent(1, " sky", R, 1, 0.1, 0.8, u=0.77))
    assert "rejected draft · position 2 · p 0.100 · q 0.800 · min(1, p/q) 0.125 · u 0.770 ≥ min(1, p/q)" in line


def test_a_corrected_token_shows_the_residual_not_its_own_ratio() -> None:
    line = describe(TokenEvent(2, " land", C, 1, 0.4, 0.05, residual=0.35, residual_p=0.8))
    assert "residual 1 − α 0.350 · p in norm(max(0, p − q)) 0.800" in line
    assert "min(1, p/q)" not in line and "q 0.050" not in line


def test_bonus_and_plain_tokens_were_drawn_from_p() -> None:
    assert describe(TokenEvent(3, ".", B, 3, 0.9, None)).endswith("p 0.900 · drawn from p")
    assert describe(TokenEvent(3, ".", P, None, 0.9, None)).endswith("p 0.900 · drawn from p")


def test_greedy_says_argmax_instead_of_probabilities() -> None:
    assert describe(TokenEvent(1, " a", A, 0, 0.3, 0.2), greedy=True).endswith("argmax match")
    assert describe(TokenEvent(1, " b", R, 0, 0.1, 0.2), greedy=True).endswith("not the target's argmax")
    assert describe(TokenEvent(1, " c", C, 0, 0.6, 0.0), greedy=True).endswith("the target's argmax")
    assert "p 0." not in describe(TokenEvent(1, " a", A, 0, 0.3, 0.2), greedy=True)


def test_discarded_and_pending_drafts_have_no_verdict() -> None:
    line = describe(TokenEvent(4, " x", D, 2, None, 0.6))
    assert "discarded draft" in line and "never verified · q 0.600" in line and "p 0." not in line
    assert "verdict pending" in describe(TokenEvent(4, " x", U, 2, None, 0.6))


@pytest.mark.parametrize("status", list(TokenStatus))
def test_every_status_reads_in_both_languages(status: TokenStatus) -> None:
    token = TokenEvent(1, " 海", status, 0, 0.5, 0.4, u=0.2, residual=0.1, residual_p=0.3)
    en, zh = describe(token, "en"), describe(token, "zh")
    assert en != zh and "token." not in en and "inspect." not in zh
