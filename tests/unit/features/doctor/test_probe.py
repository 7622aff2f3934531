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


def test_the_answer_id_is_kept_and_made_safe() -> None:
    got = read_answer({"id": "cmpl-\x1b[2J" + "x" * 500, "timings": {"predicted_n": 4, "draft_n": 3,
                                                                    "draft_n_accepted": 1}}, 1.0)
    assert got.request_id is not None and "\x1b" not in got.request_id and len(got.request_id) < 100
    assert got.counts_source == "timings.draft_n"


def test_vllm_per_request_metrics_give_the_counts() -> None:
    answer = {"id": "cmpl-1", "usage": {"completion_tokens": 20},
              "metrics": {"speculative_decoding": {"num_spec_steps": 9, "num_draft_tokens": 23,
                                                   "num_accepted_draft_tokens": 20, "num_spec_tokens": 3}}}
    got = read_answer(answer, 1.0)
    assert (got.drafted, got.accepted, got.counts_source) == (23, 20, "metrics.speculative_decoding")


def test_sglang_spec_tokens_details_give_the_counts() -> None:
    answer = {"usage": {"completion_tokens": 30},
              "sglext": {"spec_tokens_details": {"spec_verify_ct": 10, "spec_num_correct_drafts": 18,
                                                 "spec_num_proposed_drafts": 30}}}
    got = read_answer(answer, 1.0)
    assert (got.drafted, got.accepted, got.counts_source) == (30, 18, "sglext.spec_tokens_details")


@pytest.mark.parametrize(("answer", "said"), [
    ({"timings": {"predicted_n": 48, "draft_n": 3, "draft_n_accepted": 9}}, "timings.draft_n: 9 accepted of 3"),
    ({"timings": {"predicted_n": 48, "draft_n": 10**6, "draft_n_accepted": 9}}, "1000000 drafted for 48 tokens"),
    ({"timings": {"predicted_n": 48, "draft_n": -3, "draft_n_accepted": 0}}, "timings.draft_n"),
    ({"metrics": {"speculative_decoding": {"num_spec_steps": 1, "num_draft_tokens": 2,
                                           "num_accepted_draft_tokens": 5}}}, "metrics.speculative_decoding"),
])
def test_counts_that_lie_are_refused_naming_the_field(answer: object, said: str) -> None:
    got = read_answer(answer, 1.0)
    assert got.error is not None and got.drafted is None and said in got.error.render("en")
