"""A tree round's lost branches as the stream draws them: each lost leaf one ⟨…⟩ token from where it
left the path, before the path token it lost to (or after the rejected token it hangs below); the
tree (`Round.lost_from`) survives a recording and a hostile one is refused naming the field."""

from __future__ import annotations

import re

import pytest

from specview.boundary.bounds import Invalid
from specview.boundary.stream_mask import mask_rounds
from specview.features.live.inspector import describe
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.lost_from import BELOW_REJECTED, ON_PATH
from specview.report.display_order import displayed
from specview.widgets.token_layout import display

A, R, C, B, D = (TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS,
                 TokenStatus.DISCARDED)
# a 3x2 tree: s1 (the chain's), x1, y1 at depth 1; below s1: s2 (the chain's), x2, y2
IDS = {"s1": 1, "x1": 2, "y1": 3, "s2": 4, "x2": 5, "y2": 6, "z": 9, "b": 8}
Q_TOP = ((1, 2, 3), (4, 5, 6))


def _t(name: str, status: TokenStatus, pos: int, p: float | None = 0.1) -> TokenEvent:
    return TokenEvent(IDS[name], name, status, pos, p, 0.2)


def _round(tokens: tuple[TokenEvent, ...], lost: tuple[TokenEvent, ...], lost_from: tuple[int, ...]) -> Round:
    return Round(0, 2, tokens, None, None, 0.0, lost=lost, q_top=Q_TOP, lost_from=lost_from)


def _drawn(rnd: Round) -> str:
    return " ".join(display(t) for t in displayed((rnd,), lost=True))


def test_siblings_are_drawn_before_the_path_token_they_lost_to() -> None:
    rnd = _round((_t("s1", A, 0), _t("s2", R, 1), _t("z", C, 1)),
                 (_t("x1", R, 0), _t("y1", R, 0), _t("x2", R, 1), _t("y2", R, 1)), (ON_PATH,) * 4)
    assert _drawn(rnd) == "⟨x1⟩ ⟨y1⟩ s1 s2 ⟨x2⟩ ⟨y2⟩ ▸z"
    assert displayed((rnd,)) == list(rnd.tokens)  # without `lost` (the report): the path only


def test_a_branch_that_left_the_path_early_is_drawn_whole_from_there() -> None:
    # q's rank 2 at depth 1 won: the chain's s1 lost, and everything below it, never judged
    rnd = _round((_t("x1", A, 0), _t("b", B, 1)),
                 (_t("s1", R, 0), _t("y1", R, 0), _t("s2", D, 1, None), _t("x2", D, 1, None), _t("y2", D, 1, None)),
                 (ON_PATH, ON_PATH, 0, 0, 0))
    assert _drawn(rnd) == "⟨y1⟩ ⟨s1s2⟩ ⟨s1x2⟩ ⟨s1y2⟩ x1 b⁺"
    branch = next(t for t in displayed((rnd,), lost=True) if t.text == "s1s2")
    assert branch.q_rank == 1 and branch.p == 0.1  # said by its first token: judged, q's rank 1
    said = describe(branch, "en")
    assert said.startswith("'s1s2' · branch that lost (tree) · position 1 · its first token judged and refused")
    assert said.endswith("rank 1 in q")
    assert "从未判定" not in describe(branch, "zh") and "落选的分支" in describe(branch, "zh")


def test_branches_below_the_rejected_token_follow_it_as_a_chains_discarded_drafts_do() -> None:
    rnd = _round((_t("s1", R, 0), _t("z", C, 0)),
                 (_t("x1", R, 0), _t("y1", R, 0), _t("s2", D, 1, None), _t("x2", D, 1, None), _t("y2", D, 1, None)),
                 (ON_PATH, ON_PATH, BELOW_REJECTED, BELOW_REJECTED, BELOW_REJECTED))
    assert _drawn(rnd) == "s1 ⟨s2⟩ ⟨x2⟩ ⟨y2⟩ ⟨x1⟩ ⟨y1⟩ ▸z"
    below = next(t for t in displayed((rnd,), lost=True) if t.text == "x2")
    assert below.q_rank == 2 and "below a rejected draft: never judged" in describe(below, "en")


def test_the_tree_round_trips_and_an_older_recording_draws_each_lost_token_alone() -> None:
    rnd = _round((_t("x1", A, 0), _t("b", B, 1)), (_t("s1", R, 0), _t("s2", D, 1, None)), (ON_PATH, 0))
    assert Round.from_dict(rnd.to_dict()) == rnd
    old = rnd.to_dict()
    del old["lost_from"]
    assert _drawn(Round.from_dict(old)) == "⟨s1⟩ x1 ⟨s2⟩ b⁺"


@pytest.mark.parametrize(("lost_from", "says"), [
    ([ON_PATH], "has 1 entries for 2 lost tokens"),
    ([ON_PATH, 1], r"lost_from\[1\] is 1, expected -2..0"),
    ([0, ON_PATH], r"lost_from\[0\] is 0, expected -2..-1"),
    ([ON_PATH, BELOW_REJECTED], r"lost_from\[1\] names a parent that is not one depth above it"),  # nothing rejected
    ([ON_PATH, "x"], r"lost_from\[1\] must be an integer"),
])
def test_a_hostile_tree_is_refused_naming_the_field(lost_from: list[object], says: str) -> None:
    data = _round((_t("x1", A, 0), _t("b", B, 1)), (_t("s1", R, 0), _t("s2", D, 1, None)), (ON_PATH, 0)).to_dict()
    data["lost_from"] = lost_from
    with pytest.raises(Invalid, match=says):
        Round.from_dict(data)


def test_a_secret_split_across_a_branchs_tokens_is_masked() -> None:
    lost = (TokenEvent(2, "sk-SEC", R, 0, 0.1, 0.2), TokenEvent(4, "RET", D, 1, None, 0.2))
    rnd = _round((_t("x1", A, 0), _t("b", B, 1)), lost, (ON_PATH, 0))
    masked = mask_rounds([rnd], re.compile("sk-SECRET"))[0]
    drawn = _drawn(masked)
    assert "SEC" not in drawn and "RET" not in drawn
