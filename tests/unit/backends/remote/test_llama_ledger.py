"""llama-server rounds placed by position from cumulative counters (backends/remote/llama_ledger.py).

The streams below are the first chunks of a real `draft-mtp` run (tiny qwen35 model,
`--spec-synth-rates 0.9,0.7,0.5`, prompt "the cat sat on"): text, predicted_n,
predicted_ms, draft_n, draft_n_accepted. Chunk 2 jumps from 1 to 4 tokens and from 0 to 6
drafts: a whole round was held back inside a UTF-8 character.
"""

from __future__ import annotations

from specview.backends.remote.llama_ledger import RoundLedger, split_counts
from specview.kernel.events import Round, TokenStatus

A, C, B, P = TokenStatus.ACCEPTED, TokenStatus.CORRECTED, TokenStatus.BONUS, TokenStatus.PLAIN

OBSERVED_MTP = [
    ("\ufffd", 1, 0.001, 0, 0),
    ("\ufffd\ufffdn", 4, 20.237, 6, 2),
    ("\ufffd", 5, 20.237, 6, 2),
    ("\ufffd", 6, 23.163, 9, 5),
    ("\ufffdy", 8, 23.163, 9, 5),
    (".", 9, 23.163, 9, 5),
    ("(", 10, 26.389, 12, 8),
    ("0", 11, 26.389, 12, 8),
    ("d", 12, 26.389, 12, 8),
    ("&", 13, 26.389, 12, 8),
    ("n", 14, 29.74, 15, 9),
    ("k", 15, 29.74, 15, 9),
]


def feed(ledger: RoundLedger, chunks: list[tuple[str, int, float, int, int]]) -> list[Round]:
    rounds: list[Round] = []
    for k, (text, n, ms, draft_n, acc) in enumerate(chunks):
        rounds += ledger.feed(n, draft_n, acc, ms, text, float(k))
    return rounds + ledger.finish()


def test_a_round_held_back_is_split_out_and_totals_stay_exact() -> None:
    ledger = RoundLedger(gamma=3)
    rounds = feed(ledger, OBSERVED_MTP)
    drafted = [r for r in rounds if r.drafted]
    assert sum(r.drafted for r in rounds) == 15 and sum(r.accepted for r in rounds) == 9
    assert sum(r.emitted for r in rounds) == 15  # predicted_n, not the 12 chunks
    assert len(drafted) == 5  # 15 drafts in rounds of 3, although only 4 chunks showed a new draft
    assert ledger.merged == 1
    assert rounds[0].tokens[0].status is P and not rounds[0].tokens[0].inferred
    # the two rounds revealed together are marked inferred; the others are exact
    assert [any(t.inferred for t in r.tokens) for r in drafted] == [True, True, False, False, False]
    assert [[t.status for t in r.tokens] for r in drafted[2:]] == [[A, A, A, B], [A, A, A, B], [A, C]]
    assert "".join(r.text for r in rounds) == "".join(c[0] for c in OBSERVED_MTP)


def test_without_gamma_the_held_back_round_cannot_be_told_apart() -> None:
    ledger = RoundLedger()
    rounds = feed(ledger, OBSERVED_MTP)
    assert sum(r.drafted for r in rounds) == 15 and sum(r.accepted for r in rounds) == 9
    assert sum(1 for r in rounds if r.drafted) == 4 and ledger.merged == 0
    assert ledger.gamma == 3  # learned from the rounds that came whole


def test_a_chunk_with_one_new_token_is_always_one_round() -> None:
    # ngram drafts vary in length: 3 then 4 (llama-server-observed.md); no unclaimed tokens, no split
    ledger = RoundLedger()
    rounds = feed(ledger, [(" ", 1, 0.0, 0, 0), ("1", 2, 43.1, 3, 1), ("3", 3, 43.1, 3, 1),
                           (",", 4, 65.8, 3, 1), (" ", 5, 123.2, 7, 2), ("1", 6, 123.2, 7, 2)])
    assert [r.drafted for r in rounds] == [0, 3, 0, 4]
    assert [[t.status for t in r.tokens] for r in rounds] == [[P], [A, C], [P], [A, C]]
    assert not any(t.inferred for r in rounds for t in r.tokens)


def test_a_replayed_prefix_adds_one_plain_token_from_the_same_forward() -> None:
    # hybrid targets: 1 of 3 accepted, checkpoint restored, prefix replayed: 3 tokens, one timing
    ledger = RoundLedger(gamma=3)
    rounds = feed(ledger, [("a", 1, 0.0, 0, 0), ("b", 2, 10.0, 3, 1), ("c", 3, 10.0, 3, 1), ("d", 4, 10.0, 3, 1)])
    assert [[t.status for t in r.tokens] for r in rounds] == [[P], [A, C], [P]]
    assert rounds[2].tokens[0].inferred


def test_split_counts_follows_the_rounds_seen_whole() -> None:
    assert split_counts(6, 2, 3, 3) == [(3, 1), (3, 1)]  # nothing seen: the even share
    # mostly full acceptance seen: 3 + 0 is likelier than 2 + 1
    assert split_counts(6, 3, 3, 3, seen=[5, 0, 0, 20]) == [(3, 3), (3, 0)]
    assert split_counts(6, 2, 3, 1) == [(6, 2)]  # no unclaimed token: one round whatever γ says
    assert split_counts(3, 1, 3, 5) == [(3, 1)]
    assert sum(a for _, a in split_counts(40, 17, 3, 20)) == 17  # too many to weigh: even, exact total
