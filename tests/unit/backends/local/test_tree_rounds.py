"""A tree round's extra data (the branches that lost, q's top tokens) survives a recording, bounded and
checked; each tree node belongs to the sequences of the leaves below it."""

from __future__ import annotations

import pytest

from specview.backends.local.top import top_tokens
from specview.backends.local.tree_verify import leaf_sequences
from specview.boundary.bounds import Invalid
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.tree_sampling import DraftTree


def _tree_round() -> Round:
    tokens = (TokenEvent(5, "a", TokenStatus.ACCEPTED, 0, 0.6, 0.5, q_rank=1),
              TokenEvent(7, "b", TokenStatus.REJECTED, 1, 0.1, 0.4),
              TokenEvent(8, "c", TokenStatus.CORRECTED, 1, 0.7, None, q_rank=0))
    lost = (TokenEvent(6, "x", TokenStatus.REJECTED, 0, 0.2, 0.3),
            TokenEvent(9, "y", TokenStatus.DISCARDED, 1, None, 0.2))
    return Round(0, 2, tokens, 0.01, 0.02, 1.0, lost=lost, q_top=((5, 6, 1), (7, 9, 8)))


def test_a_tree_round_round_trips_and_a_chain_round_stays_as_it_was() -> None:
    rnd = _tree_round()
    data = rnd.to_dict()
    assert Round.from_dict(data) == rnd
    chain = Round(1, 1, rnd.tokens[:1], None, None, 2.0)
    assert "lost" not in chain.to_dict() and "q_top" not in chain.to_dict()
    assert Round.from_dict(chain.to_dict()) == chain
    import pickle

    assert pickle.loads(pickle.dumps(rnd)) == rnd


@pytest.mark.parametrize(("edit", "says"), [
    (lambda d: d.update(lost=[{**d["lost"][0], "status": "accepted"}]), "neither rejected nor discarded"),
    (lambda d: d.update(lost=[d["lost"][0]] * 2000), "round.lost"),
    (lambda d: d.update(q_top=[[1] * 9]), "round.q_top[0]"),
    (lambda d: d.update(q_top=[[-1]]), "round.q_top[0][0]"),
    (lambda d: d.update(q_top="abc"), "round.q_top"),
    (lambda d: d["tokens"][0].update(q_rank=99), "round.tokens[0].q_rank"),
])
def test_a_hostile_tree_round_is_refused_naming_the_field(edit: object, says: str) -> None:
    data = _tree_round().to_dict()
    edit(data)  # type: ignore[operator]
    with pytest.raises(Invalid, match=says.replace("[", r"\[").replace("]", r"\]")):
        Round.from_dict(data)


def test_each_node_belongs_to_the_sequences_of_the_leaves_below_it() -> None:
    # root → s1 (→ s2, a2), a1 ; s1's first child s2 is the chain's leaf: sequence 0
    tree = DraftTree((0, 10, 11, 20, 21), (-1, 0, 0, 1, 1))
    first_seq, seqs = leaf_sequences(tree)
    assert seqs[3] == [0]  # s2, the chain's leaf
    assert seqs[0] == [0, 1, 2] and seqs[1] == [0, 2]
    assert seqs[2] == [1] and seqs[4] == [2]
    assert first_seq == [0, 0, 1, 0, 2]


def test_top_tokens_are_the_highest_first_and_leave_the_row_as_it_was() -> None:
    import numpy as np

    row = np.array([0.1, 3.0, -1.0, 2.5, 3.0, 0.0], dtype=np.float32)
    before = row.copy()
    assert top_tokens(row, 3) == [1, 4, 3]
    assert np.array_equal(row, before)
    assert top_tokens(row, 10) == [1, 4, 3, 0, 5, 2]


def test_a_secret_in_a_lost_branch_is_masked() -> None:
    import re

    from specview.boundary.stream_mask import mask_rounds

    rnd = _tree_round()
    secret = Round(rnd.index, rnd.drafted, rnd.tokens, None, None, 0.0,
                   lost=(TokenEvent(6, "sk-SECRET", TokenStatus.REJECTED, 0, 0.2, 0.3),), q_top=rnd.q_top)
    masked = mask_rounds([secret], re.compile("sk-SECRET"))[0]
    assert "SECRET" not in masked.lost[0].text and masked.lost[0].token_id == 6
