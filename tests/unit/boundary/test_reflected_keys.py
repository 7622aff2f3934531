"""A key a server echoes back disguised: invisible characters between its characters, another
letter case. Masked in any text (`mask`, `sanitize`, `--json`) and in a stream of rounds split
anyhow (`RoundMasker`); tests/hostile/test_hostile_keys.py tries it end to end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specview.boundary.jsonio import dumps
from specview.boundary.secrets import add_secret, forget_secrets, mask
from specview.boundary.stream_mask import RoundMasker
from specview.boundary.text import sanitize
from tests.support.disguise import json_revealed, revealed
from tests.support.masked_stream import masked, plain_rounds

SECRET = "sk-Reflect-0123456789abcdef"
# zero-width space / non-joiner / joiner, word joiner, soft hyphen, combining grapheme joiner,
# variation selectors 16 and 1, the Hangul filler, a tag character, BOM, a control
INVISIBLES = ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\u034f", "\ufe0f", "\ufe00", "\u3164",
              "\U000e0041", "\ufeff", "\x07"]


@pytest.fixture(autouse=True)
def _clean_secrets() -> Iterator[None]:
    forget_secrets()
    yield
    forget_secrets()


def disguised(secret: str, between: str) -> str:
    return between.join(secret)


@pytest.mark.parametrize("between", INVISIBLES)
def test_a_key_with_invisible_characters_between_its_characters_is_masked(between: str) -> None:
    add_secret(SECRET)
    echoed = f"error: bad key {disguised(SECRET, between)}!"
    assert mask(echoed) == "error: bad key ***!"
    assert not revealed(sanitize(echoed), SECRET) and "***" in sanitize(echoed)
    assert not json_revealed(dumps({"model": echoed}), SECRET)


@pytest.mark.parametrize("echoed", [SECRET.upper(), SECRET.lower(), SECRET.swapcase(),
                                    "\u200d" + SECRET + "\u200d", "\ufe0f".join(SECRET.upper()),
                                    SECRET[:10] + "\n" + SECRET[10:]])
def test_a_key_in_another_case_or_around_invisible_characters_is_masked(echoed: str) -> None:
    add_secret(SECRET)
    assert not revealed(sanitize(f"model {echoed} end"), SECRET), sanitize(echoed)


def test_a_key_registered_with_invisible_characters_is_the_key() -> None:
    add_secret("\u200b" + SECRET + "\u00ad")
    assert mask(SECRET) == "***"


def test_unrelated_text_is_left_alone() -> None:
    add_secret(SECRET)
    text = "sk-Reflect is a prefix, 0123456789abcdef a suffix; emoji 👍 and ünïcödé stay"
    assert mask(text) == text


@given(st.lists(st.sampled_from(INVISIBLES), min_size=len(SECRET) - 1, max_size=len(SECRET) - 1),
       st.lists(st.booleans(), min_size=len(SECRET), max_size=len(SECRET)),
       st.lists(st.integers(min_value=0, max_value=120), max_size=10), st.integers(min_value=1, max_value=4),
       st.text(alphabet="ab sk-", max_size=10))
@settings(max_examples=300, deadline=None)
def test_a_disguised_key_split_anyhow_across_tokens_and_rounds_is_masked(
    gaps: list[str], upper: list[bool], cuts: list[int], per_round: int, before: str
) -> None:
    letters = [ch.upper() if up else ch for ch, up in zip(SECRET, upper, strict=True)]
    echoed = "".join(ch + gap for ch, gap in zip(letters, [*gaps, ""], strict=True))
    text = before + echoed + " tail " + SECRET[:5]  # and a beginning of it at the very end
    out, fed = masked(text, cuts, per_round, SECRET)
    shown_text = "".join(t.text for r in out for t in r.tokens)
    assert shown_text == before + "*** tail " + SECRET[:5]
    assert [r.index for r in out] == list(range(fed))  # nothing lost, order kept


def test_the_stream_masker_holds_a_disguised_beginning_back() -> None:
    masker = RoundMasker([SECRET])
    assert masker.feed(plain_rounds([["SK\u200d-rE"]])[0]) == []  # may be the key: held
    assert masker.feed(plain_rounds([["\u00ad"]])[0]) == []  # still may be
    released = masker.feed(plain_rounds([["FLECT-0123456789ABCDEF!"]])[0])
    assert "".join(t.text for r in released for t in r.tokens) == "***!"
