"""The token view's layout: taking provisional tokens back exactly, hiding a status, round separators,
and appending in batches placing every token where wrapping them all at once would."""

from __future__ import annotations

import random

import pytest

from specview.kernel.events import TokenEvent, TokenStatus
from specview.widgets.token_layout import ROUND_ENDS, ROUND_SEPARATOR, TokenLayout, display

A, R, C, B, P, D, U = (TokenStatus.ACCEPTED, TokenStatus.REJECTED, TokenStatus.CORRECTED, TokenStatus.BONUS,
                       TokenStatus.PLAIN, TokenStatus.DISCARDED, TokenStatus.UNDECIDED)


def tokens(spec: str) -> list[TokenEvent]:
    """'A:the R:cat' → tokens (a leading space on every word but the first)."""
    out = []
    for i, item in enumerate(spec.split()):
        status, word = item.split(":")
        out.append(TokenEvent(i, word if i == 0 else " " + word, TokenStatus(status)))
    return out


ROUNDS = tokens("plain:Once accepted:upon accepted:a bonus:time accepted:there rejected:were discarded:many "
                "discarded:cats corrected:lived plain:in")


def rows(layout: TokenLayout) -> list[str]:
    lines = layout.lines[: layout.line_count]
    return ["".join(layout.texts[t - layout.base][a:b] for t, a, b in line) for line in lines]


def test_drop_tail_returns_the_layout_to_where_it_was() -> None:
    head, tail = ROUNDS[:5], ROUNDS[5:]
    alone = TokenLayout(12)
    alone.append(head)
    both = TokenLayout(12)
    both.append(head)
    both.append(tail)
    assert rows(both) != rows(alone)
    first = both.drop_tail(len(tail))
    assert rows(both) == rows(alone) and both.tokens == alone.tokens and first <= alone.line_count
    more = tokens("plain:x accepted:yy bonus:zzz")
    both.append(more)
    alone.append(more)
    assert rows(both) == rows(alone) and both.token_line == alone.token_line and both.token_col == alone.token_col


def test_hidden_discarded_drafts_take_no_room_and_keep_their_indices() -> None:
    layout = TokenLayout(80)
    layout.append(ROUNDS)
    shown = "".join(rows(layout))
    assert "many" + display(ROUNDS[6])[-1:] in shown and display(ROUNDS[6]).endswith("ˣ")
    layout.set_display(hidden=frozenset({D}))
    assert "many" not in "".join(rows(layout)) and "cats" not in "".join(rows(layout))
    assert len(layout.tokens) == len(ROUNDS)  # still there: a selection index means the same token
    assert layout.plain_text() == "Once upon a time there lived in"


def test_round_separators_mark_where_each_round_begins() -> None:
    layout = TokenLayout(80, separators=True)
    layout.append(ROUNDS)
    line = "".join(rows(layout))
    # rounds: [Once] [upon a time⁺] [there ~~were~~ manyˣ catsˣ ▸lived] [in]
    assert line.count(ROUND_SEPARATOR) == 3
    assert line.startswith("Once" + ROUND_SEPARATOR + " upon")
    assert ROUND_SEPARATOR + " there" in line and ROUND_SEPARATOR + " in" in line
    assert [layout.separated(i) for i in range(len(ROUNDS))] == [False, True, False, False, True, False, False,
                                                                False, False, True]
    layout.set_display(separators=False)
    assert ROUND_SEPARATOR not in "".join(rows(layout))


def test_undecided_drafts_are_marked() -> None:
    assert display(TokenEvent(1, " sea", U)).endswith("ˀ")
    assert not TokenEvent(1, " sea", U).emitted and not TokenEvent(1, " sea", D).emitted


@pytest.mark.parametrize("separators", [False, True])
@pytest.mark.parametrize("hidden", [frozenset(), frozenset({TokenStatus.LOST, TokenStatus.DISCARDED})],
                         ids=lambda hidden: "+".join(sorted(s.value for s in hidden)) or "none")  # stable per worker
def test_appending_in_any_batches_places_every_token_as_wrapping_all_at_once(
        separators: bool, hidden: frozenset[TokenStatus]) -> None:
    rng = random.Random(7)
    texts = [" a", " word", "\n", " 数据", "  ", "x" * 45, " 😀", "", " end.", "tab\tbed"]
    statuses = list(TokenStatus)
    events = [TokenEvent(i, rng.choice(texts), rng.choice(statuses)) for i in range(3000)]
    for width in (1, 7, 38, 80):
        batched = TokenLayout(width, hidden=hidden, separators=separators)
        at = 0
        while at < len(events):
            size = rng.choice([1, 2, 5, 50, 400])
            batched.append(events[at:at + size])
            at += size
        whole = TokenLayout(width, hidden=hidden, separators=separators)
        whole.tokens = list(events)
        whole.starts_round = [i > 0 and events[i - 1].status in ROUND_ENDS for i in range(len(events))]
        whole.texts = [whole.text_of(e, s) for e, s in zip(events, whole.starts_round, strict=True)]
        whole.rewrap(width)
        assert batched.texts == whole.texts
        assert batched.starts_round == whole.starts_round
        assert batched.lines == whole.lines, width
        assert (batched.token_line, batched.token_col) == (whole.token_line, whole.token_col)
        assert batched.tokens == events


def test_after_pruning_every_token_knows_its_line_and_drop_tail_still_returns_exactly() -> None:
    words = [TokenEvent(i, f" w{i % 97}" + ("\n" if i % 41 == 0 else ""), A) for i in range(3000)]
    layout = TokenLayout(23)
    layout.append(words[:2000])
    for start in range(2000, 3000, 250):  # prune several times between appends, as a fast view does
        layout.append(words[start:start + 250])
        assert layout.prune(1200) > 0
        for i in range(len(layout.tokens)):
            y = layout.line_of(i)
            here = [line for line in (layout.lines[y], layout.lines[y + 1] if y + 1 < len(layout.lines) else [])
                    if any(piece[0] == layout.base + i for piece in line)]
            assert here, i  # the token starts on the line it names, or on the next (it began a new one)
    kept = list(layout.tokens)
    again = TokenLayout(23)
    again.append(kept)  # the kept tokens wrapped afresh: the same lines
    assert rows(layout) == rows(again)
    more = words[:37]
    layout.append(more)
    layout.drop_tail(len(more))
    assert rows(layout) == rows(again)
