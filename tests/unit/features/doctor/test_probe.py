"""A probe's answer read through the boundary: timings used, lies and garbage set aside."""

from __future__ import annotations

import pytest

from specview.features.doctor.probe import read_answer


def test_llama_server_timings_give_the_decode_speed() -> None:
    got = read_answer({"timings": {"predicted_n": 40, "predicted_ms": 2000.0, "draft_n": 30,
                                   "draft_n_accepted": 20}}, 2.5)
    assert got.error is None and (got.tokens, got.drafted, got.accepted) == (40, 30, 20)
    assert got.tokens_per_s == pytest.approx(20.0)


def test_usage_alone_gives_tokens_but_no_speed() -> None:
    got = read_answer({"usage": {"completion_tokens": 12}}, 1.0)
    assert got.tokens == 12 and got.tokens_per_s is None


@pytest.mark.parametrize("answer", [
    {"timings": {"predicted_n": 10, "predicted_ms": 5.0, "draft_n": 3, "draft_n_accepted": 9}},  # accepted > drafted
    {"timings": {"predicted_n": -1}},
    {"timings": {"predicted_n": "many"}},
    {"timings": {"predicted_n": 10, "predicted_ms": 1e300}},
    ["not", "an", "object"],
])
def test_an_answer_that_fails_a_check_is_not_used(answer: object) -> None:
    got = read_answer(answer, 1.0)
    assert got.error is not None and got.tokens_per_s is None and got.tokens is None
