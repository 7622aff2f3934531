"""The boundary pieces on their own: sanitize, the secret masker (also across tokens and rounds),
strict JSON in and safe JSON out, the bounded SSE reader, the bound checks."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specview.backends.remote.sse import EventTooLarge, iter_event_data
from specview.boundary import bounds
from specview.boundary.jsonio import JsonError, dumps, loads
from specview.boundary.secrets import add_secret, add_url_secrets, forget_secrets, mask, public_url
from specview.boundary.stream_mask import RoundMasker
from specview.boundary.text import is_safe, sanitize, shown
from specview.kernel.events import Round, TokenEvent, TokenStatus
from tests.support.masked_stream import masked, plain_rounds

SECRET = "sk-unit-SECRET-42"
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e"
                    "\u2060-\u2064\u2066-\u206f\ufeff\ud800-\udfff\U000e0000-\U000e007f]")


@pytest.fixture(autouse=True)
def _clean_secrets() -> Iterator[None]:
    forget_secrets()
    yield
    forget_secrets()


def test_sanitize_makes_every_control_visible() -> None:
    text = "a\x1b]52;c;QQ==\x07b\x9b31m\u202eevil\u2066\u200b\ufeff\U000e0041\ud800\x7f\tz\nnext"
    clean = sanitize(text)
    assert clean == "a␛]52;c;QQ==␇b�31m�evil�����␡    z\nnext"
    assert sanitize("line\nbreak", one_line=True) == "line␊break"
    # joiners too: Rich counts the emoji they join as one, terminals disagree (tests/unit/boundary/test_widths.py)
    assert sanitize("emoji 👨\u200d👩\u200d👧 shows its joiners") == "emoji 👨�👩�👧 shows its joiners"


@given(st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=200),
       st.integers(min_value=0, max_value=50))
@settings(max_examples=300, deadline=None)
def test_sanitized_text_is_always_safe_and_bounded(text: str, limit: int) -> None:
    clean = sanitize(text, limit)
    assert UNSAFE.search(clean) is None and is_safe(clean)
    assert len(clean) <= limit + len("…[+999]")
    clean.encode("utf-8")  # no lone surrogate left: every terminal and file can take it


def test_a_secret_is_masked_before_the_cut() -> None:
    add_secret(SECRET)
    body = "x" * 180 + " Bearer " + SECRET + " tail"
    clean = sanitize(body, 200)
    assert SECRET[:6] not in clean and "Bearer ***" in clean  # not "Bearer sk-uni…"
    assert mask(f"a{SECRET}b{SECRET}") == "a***b***"
    add_secret("abc")  # too short to mask without garbling everything
    assert mask("abc") == "abc"


def test_url_credentials_are_secrets_and_never_shown() -> None:
    url = "https://user:pa55word@host.example:8443/v1?token=tok-XYZ-123&format=json&s=0123456789abcdef#frag"
    add_url_secrets(url)
    assert public_url(url) == "https://host.example:8443/v1"
    assert mask("user pa55word tok-XYZ-123 json 0123456789abcdef") == "user *** *** json ***"
    assert public_url("http://[::1:1/v1") == "<invalid URL>"


def test_shown_is_short_for_any_value() -> None:
    assert len(shown("x" * 10_000_000)) < 80
    assert len(shown(list(range(1_000_000)))) < 80
    assert shown("\x1b]0;t\x07") == "'\\x1b]0;t\\x07'"


@pytest.mark.parametrize(("text", "reason"), [
    ('{"a": NaN}', "NaN is not a JSON number"),
    ('{"a": -Infinity}', "-Infinity is not a JSON number"),
    ("[" * 100_000, "nested too deeply"),
    ("1" * 5000, "not valid JSON we accept"),
    ('{"a": ', "not valid JSON"),
])
def test_strict_json_refuses(text: str, reason: str) -> None:
    with pytest.raises(JsonError, match=re.escape(reason)):
        loads(text)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4),
                    max_leaves=20))
@settings(max_examples=200, deadline=None)
def test_json_out_is_valid_exact_and_terminal_safe(value: object) -> None:
    out = dumps(value)
    assert UNSAFE.search(out) is None  # nothing a terminal could obey, even on `cat`
    back = json.loads(out)  # strict JSON: no NaN (it is null)

    def same(a: object, b: object) -> bool:
        if isinstance(a, float) and not math.isfinite(a):
            return b is None
        if isinstance(a, list):
            return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
        if isinstance(a, dict):
            return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        return a == b

    assert same(value, back)


def test_json_out_masks_secrets() -> None:
    add_secret(SECRET)
    assert SECRET not in dumps({"model": f"m-{SECRET}", "text": [SECRET]})


@given(st.lists(st.integers(min_value=0, max_value=60), max_size=8), st.integers(min_value=1, max_value=4),
       st.text(alphabet="ab sk-", max_size=20), st.text(alphabet="ab sk-", max_size=20))
@settings(max_examples=300, deadline=None)
def test_a_secret_split_anyhow_across_tokens_and_rounds_is_masked(
    cuts: list[int], per_round: int, before: str, after: str
) -> None:
    text = before + SECRET + after + SECRET[:5]  # and a beginning of it at the very end
    out, fed = masked(text, cuts, per_round, SECRET)
    shown_text = "".join(t.text for r in out for t in r.tokens)
    assert shown_text == text.replace(SECRET, "***")
    assert [r.index for r in out] == list(range(fed))  # nothing lost, order kept
    assert all(SECRET[:8] not in t.text for r in out for t in r.tokens)


def test_the_stream_masker_holds_back_only_a_possible_beginning() -> None:
    masker = RoundMasker([SECRET])
    assert len(masker.feed(plain_rounds([["hello "]])[0])) == 1
    assert masker.feed(plain_rounds([["sk-un"]])[0]) == []  # may be the key: held
    released = masker.feed(plain_rounds([["related"]])[0])
    assert "".join(t.text for r in released for t in r.tokens) == "sk-unrelated"


def test_a_secret_in_discarded_drafts_is_masked_too() -> None:
    """A reflected key that a draft guessed and the target refused must not show in the discarded run."""
    rejected = TokenEvent(1, SECRET[:6], TokenStatus.REJECTED, 0, 0.1, 1.0)
    fix = TokenEvent(2, " no", TokenStatus.CORRECTED, 0, 0.5, 0.0)
    thrown = (TokenEvent(3, SECRET[6:14], TokenStatus.DISCARDED, 1, None, 1.0),
              TokenEvent(4, SECRET[14:] + " more", TokenStatus.DISCARDED, 2, None, 1.0))
    rnd = Round(0, 3, (rejected, fix), 0.0, 0.01, 1.0, thrown)
    out = RoundMasker([SECRET]).feed(rnd)
    shown_text = "".join(t.text for r in out for t in (*r.tokens, *r.discarded))
    assert SECRET not in shown_text and SECRET[6:14] not in shown_text
    assert "".join(t.text for t in out[0].discarded) == " more"  # the key's parts, dropped; the rest kept


def _events(*chunks: bytes, limit: int = 1000) -> list[str]:
    return list(iter_event_data(iter(chunks), limit))


def test_sse_reader_splits_lines_and_events() -> None:
    assert _events(b"data: a\r\n\r\ndata: b\n", b"data: c\n\n: comment\n\ndata:d\r\r") == ["a", "b\nc", "d"]
    assert _events(b"data: x\r", b"\ndata: y\n\n") == ["x\ny"]  # a CRLF split across chunks counts once
    assert _events(b"event: e\nid: 1\ndata: last") == ["last"]  # the end of the stream ends the event


def test_sse_reader_is_bounded() -> None:
    with pytest.raises(EventTooLarge, match="a line is longer"):
        _events(b"data: " + b"x" * 600, b"y" * 600)
    with pytest.raises(EventTooLarge, match="an event is larger"):
        _events(*[b"data: " + b"x" * 100 + b"\n" for _ in range(20)])


def test_bound_checks() -> None:
    assert bounds.integer(3, "n", 0, 5) == 3
    for bad in (True, 3.0, "3", None):
        with pytest.raises(bounds.Invalid, match="n must be an integer"):
            bounds.integer(bad, "n", 0, 5)
    with pytest.raises(bounds.Invalid, match=r"n is 6, expected 0\.\.5"):
        bounds.integer(6, "n", 0, 5)
    for bad_real in (math.nan, math.inf, -math.inf):
        with pytest.raises(bounds.Invalid, match="finite"):
            bounds.real(bad_real, "t")
    with pytest.raises(bounds.Invalid, match="went back"):
        bounds.increase(5, 4, "c", 10)
    with pytest.raises(bounds.Invalid, match="jumped from 0 to 11"):
        bounds.increase(0, 11, "c", 10)
