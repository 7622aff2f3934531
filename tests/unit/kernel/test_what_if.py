"""The rank of the target's token in q, and the chain run's what-if line: what a width-2/3 tree would have had."""

from __future__ import annotations

from specview.features.live.inspector import describe
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.what_if import WhatIf, with_q_ranks
from specview.report.sentences import what_if_lines

A, R, C, B = TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS


def _round(fix: int, q_top: tuple[tuple[int, ...], ...], *, lost: tuple[TokenEvent, ...] = ()) -> Round:
    tokens = (TokenEvent(1, "a", A, 0, 0.9, 0.8), TokenEvent(2, "b", R, 1, 0.1, 0.7),
              TokenEvent(fix, "c", C, 1, 0.6, None))
    return Round(0, 2, with_q_ranks(tokens, q_top), None, None, 0.0, lost=lost, q_top=q_top)


def test_ranks_in_q_of_each_judged_token() -> None:
    rnd = _round(5, ((1, 7, 8), (2, 5, 9)))
    assert [t.q_rank for t in rnd.tokens] == [1, 1, 2]
    assert _round(4, ((1, 7, 8), (2, 5, 9))).tokens[2].q_rank == 0  # not among q's top 3
    bonus = with_q_ranks([TokenEvent(3, "x", B, 2, 0.5)], ((1,), (2,)))
    assert bonus[0].q_rank is None  # the bonus position had no draft
    assert with_q_ranks(rnd.tokens[:1], ())[0] == rnd.tokens[0]


def test_the_what_if_counts_rank_2_and_3_corrections_of_chain_rounds_only() -> None:
    tops = ((1, 7, 8), (2, 5, 9))
    rounds = [_round(5, tops), _round(9, tops), _round(4, tops), _round(5, tops),
              _round(5, tops, lost=(TokenEvent(7, "z", R, 0, 0.1, 0.1),))]  # a tree round: not counted
    what_if = WhatIf.of(rounds)
    assert what_if == WhatIf(rejected=4, rank2=2, rank3=1, rounds=4)
    assert (what_if.width2, what_if.width3) == (2, 3)
    line = what_if_lines(what_if, 0.0, "en")
    assert line == ["what if (a tree): of 4 rejected drafts, the target's token was q's rank 2 at 2 and rank 3 at 1: "
                    "a width-2 tree would have had it as a candidate 2×, a width-3 tree 3× (75% of the rejections)"]
    assert len(what_if_lines(what_if, 0.8, "zh")) == 2
    assert what_if_lines(WhatIf(), 0.0, "en")[0].endswith("(an n-gram draft has no q)")


def test_the_inspector_says_the_rank_in_q() -> None:
    rnd = _round(5, ((1, 7, 8), (2, 5, 9)))
    assert describe(rnd.tokens[2], "en", greedy=True).endswith("rank 2 in q")
    assert "不在 q 的前 3 名内" in describe(_round(4, ((1, 7, 8), (2, 5, 9))).tokens[2], "zh", greedy=True)
