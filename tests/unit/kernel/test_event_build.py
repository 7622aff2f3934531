"""kernel/event_build.py makes the same TokenEvent and Round as their constructors, without their
frozen `__init__` (the simulator flat out and the child process's pipe build millions)."""

from __future__ import annotations

import dataclasses

import pytest

from specview.kernel.event_build import ROUND_FIELDS, TOKEN_FIELDS, round_event, token_event
from specview.kernel.events import Round, TokenEvent, TokenStatus


def test_the_builders_name_every_field_in_order() -> None:
    assert tuple(f.name for f in dataclasses.fields(TokenEvent)) == TOKEN_FIELDS
    assert tuple(f.name for f in dataclasses.fields(Round)) == ROUND_FIELDS


def test_a_built_token_and_round_are_the_constructed_ones() -> None:
    args = (7, " the", TokenStatus.CORRECTED, 2, 0.25, 0.125, False, 0.5, 0.75, 0.3, 1)
    token = token_event(*args)
    assert token == TokenEvent(*args) and hash(token) == hash(TokenEvent(*args))
    assert repr(token) == repr(TokenEvent(*args))
    assert token_event(1, "a", TokenStatus.PLAIN) == TokenEvent(1, "a", TokenStatus.PLAIN)  # the defaults
    with pytest.raises(dataclasses.FrozenInstanceError):
        token.text = "x"  # type: ignore[misc]
    rnd_args = (3, 2, (token,), 0.001, 0.02, 1.5, (token,), "ngram", (), ((1, 2),), ())
    assert round_event(*rnd_args) == Round(*rnd_args)
    assert round_event(3, 0, (token,), None, None, 2.0) == Round(3, 0, (token,), None, None, 2.0)
    assert round_event(*rnd_args).emitted == 1


def test_the_childs_messages_carry_rounds_as_fields_and_read_back_equal() -> None:
    """backends/process.py's pipe: every kind of round (a tree round with its lost branches and
    q's tops, a named drafter) comes back equal, rebuilt by the builders."""
    from specview.backends.process import decode, encode

    token = TokenEvent(3, "x", TokenStatus.REJECTED, 0, 0.1, 0.4, False, 0.9)
    lost = TokenEvent(4, "y", TokenStatus.DISCARDED, 1, None, 0.2)
    rounds = [Round(0, 2, (token, TokenEvent(5, "z", TokenStatus.CORRECTED, 0, 0.5, 0.1)), 0.001, 0.01, 1.0,
                    (lost,), "eagle", (lost,), ((3, 4, 5), (6,)), (-1,)),
              Round(1, 0, (TokenEvent(1, "a", TokenStatus.PLAIN, 0, 0.9, None),), None, 0.01, 1.1)]
    message = encode("rounds", rounds)
    assert b"token_event" in message and b"round_event" in message
    kind, back = decode(message)
    assert kind == "rounds" and back == rounds
    assert [type(r) for r in back] == [Round, Round] and type(back[0].tokens[0]) is TokenEvent


def test_every_field_crosses_the_pipe_and_a_plain_pickle() -> None:
    """process.py writes the fields out by hand: a token and a round with every field set apart from
    its default come back equal through the pipe, and through a plain pickle (the dataclass's own)."""
    import pickle

    from specview.backends.process import decode, encode

    token = token_event(*(7, " the", TokenStatus.CORRECTED, 2, 0.25, 0.125, True, 0.5, 0.75, 0.3, 4))
    assert all(getattr(token, f.name) != f.default for f in dataclasses.fields(TokenEvent))
    rnd = Round(3, 2, (token,), 0.001, 0.02, 1.5, (token,), "ngram", (token,), ((1, 2),), (-1,))
    assert all(getattr(rnd, f.name) != f.default for f in dataclasses.fields(Round))
    assert decode(encode("rounds", [rnd])) == ("rounds", [rnd])
    assert pickle.loads(pickle.dumps(rnd)) == rnd
