"""Parsing the texts llama-server, vLLM and SGLang publish, sample by sample (sources cited)."""
# ruff: noqa: E501 - published samples are kept verbatim, one line per series

from __future__ import annotations

from typing import Any

from specview.backends.remote.dialect import RequestSettings
from specview.backends.remote.kinds.llama_server import LlamaServerDialect
from specview.backends.remote.kinds.sglang import SglangDialect, parse_totals
from specview.backends.remote.kinds.vllm import VllmDialect, layout, parse_request_stats, regroup
from specview.backends.remote.metrics import DraftCounters, parse_draft_counters, parse_gauges
from specview.kernel.events import Round, TokenStatus

SETTINGS = RequestSettings(model="m", prompt="p", raw=False, temperature=0.0, seed=0, max_tokens=64, gamma=None)
A, C, B, P = TokenStatus.ACCEPTED, TokenStatus.CORRECTED, TokenStatus.BONUS, TokenStatus.PLAIN


def statuses(rounds: list[Round]) -> list[list[TokenStatus]]:
    return [[t.status for t in r.tokens] for r in rounds]


def feed_all(dialect: Any, events: list[dict[str, Any]]) -> list[Round]:
    rounds: list[Round] = []
    for k, event in enumerate(events):
        rounds += dialect.feed(event, float(k))
    return rounds + dialect.finish(float(len(events)))


# -- llama-server -------------------------------------------------------------------------

def llama_chunk(text: str | None, timings: dict[str, float] | None, finish: str | None = None) -> dict[str, Any]:
    """A /v1/chat/completions chunk as tools/server/server-task.cpp
    (`to_json_oaicompat_chat`) builds it: `timings` sits on the last delta of a result."""
    delta: dict[str, Any] = {} if text is None else {"content": text}
    event: dict[str, Any] = {"choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
                             "object": "chat.completion.chunk"}
    if timings is not None:
        event["timings"] = {"cache_n": 0, "prompt_n": 12, "prompt_ms": 30.0, **timings}
    return event


def t(n: int, ms: float, draft_n: int | None = None, acc: int | None = None) -> dict[str, float]:
    out: dict[str, float] = {"predicted_n": n, "predicted_ms": ms}
    if draft_n is not None:
        out |= {"draft_n": draft_n, "draft_n_accepted": acc or 0}
    return out


def test_llama_rebuilds_the_observed_table_exactly() -> None:
    # ../shared/research/llama-server-observed.md, "What a client sees": ngram-simple on "1, 2, 3, …, 12,"
    events = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}]},  # role delta: no timings
        llama_chunk(" ", t(1, 0.0)),
        llama_chunk("1", t(2, 43.1, 3, 1)),
        llama_chunk("3", t(3, 43.1, 3, 1)),
        llama_chunk(",", t(4, 65.8, 3, 1)),
        llama_chunk(" ", t(5, 123.2, 7, 2)),
        llama_chunk("1", t(6, 123.2, 7, 2)),
        llama_chunk("", t(6, 123.2, 7, 2), finish="length"),
    ]
    rounds = feed_all(LlamaServerDialect(SETTINGS), events)
    assert statuses(rounds) == [[P], [A, C], [P], [A, C]]
    assert [r.drafted for r in rounds] == [0, 3, 0, 4]
    assert "".join(r.text for r in rounds) == " 13, 1"
    assert rounds[1].t_verify_s is not None and abs(rounds[1].t_verify_s - 0.0431) < 1e-9
    assert not any(tok.inferred for r in rounds for tok in r.tokens)
    assert [r.index for r in rounds] == [0, 1, 2, 3]


def test_llama_bonus_held_back_utf8_and_late_text() -> None:
    events = [
        llama_chunk("A", t(1, 0.0)),
        llama_chunk("b", t(2, 20.0, 2, 2)),
        llama_chunk("cé", t(4, 20.0, 2, 2)),  # no chunk for token 3: it ended inside a UTF-8 character
        llama_chunk("x", t(5, 31.0, 2, 2)),  # a plain round: the drafter had nothing
        llama_chunk("!", t(5, 31.0, 2, 2), finish="stop"),  # text released at the end, no new token
    ]
    rounds = feed_all(LlamaServerDialect(SETTINGS), events)
    assert statuses(rounds) == [[P], [A, A, B], [P]]
    assert [tok.text for tok in rounds[1].tokens] == ["b", "", "cé"]
    assert rounds[2].text == "x!"


def test_llama_replay_builds_show_the_second_forward_as_plain() -> None:
    # hybrid/SWA builds re-verify the accepted prefix: 1 accepted + corrected + one more token
    events = [llama_chunk("a", t(1, 0.0)), llama_chunk("b", t(2, 50.0, 4, 1)),
              llama_chunk("c", t(3, 50.0, 4, 1)), llama_chunk("d", t(4, 50.0, 4, 1))]
    rounds = feed_all(LlamaServerDialect(SETTINGS), events)
    assert statuses(rounds) == [[P], [A, C], [P]]
    assert rounds[2].tokens[0].inferred


def test_llama_metrics_text() -> None:
    # ../shared/research/llama-server-observed.md "GET /metrics", in the HELP/TYPE layout of
    # tools/server/server-task.cpp `server_task_result_metrics::to_metrics`
    text = """# HELP llamacpp:spec_decode_num_draft_tokens_total Speculative: Total draft tokens generated
# TYPE llamacpp:spec_decode_num_draft_tokens_total counter
llamacpp:spec_decode_num_draft_tokens_total 210
# HELP llamacpp:spec_decode_num_accepted_tokens_total Speculative: Total draft tokens accepted by the target model
# TYPE llamacpp:spec_decode_num_accepted_tokens_total counter
llamacpp:spec_decode_num_accepted_tokens_total 146
# HELP llamacpp:spec_decode_num_drafts_total Speculative: Total speculative decoding verification steps
# TYPE llamacpp:spec_decode_num_drafts_total counter
llamacpp:spec_decode_num_drafts_total 53
# HELP llamacpp:requests_processing Number of requests processing
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 0
# HELP llamacpp:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position
# TYPE llamacpp:spec_decode_num_accepted_tokens_per_pos_total counter
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="0"} 47
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="1"} 37
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="2"} 35
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="3"} 27
"""
    got = parse_draft_counters(text, "llamacpp")
    assert got == DraftCounters(drafts=53, draft_tokens=210, accepted=146, per_position=(47, 37, 35, 27))
    assert parse_draft_counters("llamacpp:requests_processing 0\n", "llamacpp") is None
    assert parse_draft_counters("not prometheus {{{", "llamacpp") is None


# -- vLLM -----------------------------------------------------------------------------------

# vllm-project/vllm PR #41916 description ("example prometheus metrics"), verbatim for the first
# four series; the per-position series follow vllm/v1/spec_decode/metrics.py (`SpecDecodingProm`:
# label `position`, one series per speculative token) with the labels PR #24049 shows.
VLLM_METRICS = """# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="Qwen/Qwen3.6-35B-A3B-FP8"} 6.491797e+06
# HELP vllm:spec_decode_num_drafts_created Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_created gauge
vllm:spec_decode_num_drafts_created{engine="0",model_name="Qwen/Qwen3.6-35B-A3B-FP8"} 1.77692439403224e+09
# HELP vllm:spec_decode_num_draft_tokens_total Number of draft tokens.
# TYPE vllm:spec_decode_num_draft_tokens_total counter
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="Qwen/Qwen3.6-35B-A3B-FP8"} 6.491797e+06
# HELP vllm:spec_decode_num_draft_tokens_created Number of draft tokens.
# TYPE vllm:spec_decode_num_draft_tokens_created gauge
vllm:spec_decode_num_draft_tokens_created{engine="0",model_name="Qwen/Qwen3.6-35B-A3B-FP8"} 1.7769243940322702e+09
# HELP vllm:spec_decode_num_accepted_tokens_total Number of accepted tokens.
# TYPE vllm:spec_decode_num_accepted_tokens_total counter
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="Qwen/Qwen3.6-35B-A3B-FP8"} 4.1e+06
# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position.
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="Qwen/Qwen3.6-35B-A3B-FP8",position="0"} 5.9e+06
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="Qwen/Qwen3.6-35B-A3B-FP8",position="0"} 1.0e+05
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="Qwen/Qwen3.6-35B-A3B-FP8",position="1"} 4.0e+06
"""


def test_vllm_metrics_sum_engines_and_skip_created() -> None:
    got = parse_draft_counters(VLLM_METRICS, "vllm")
    assert got == DraftCounters(6_491_797, 6_491_797, 4_100_000, (6_000_000, 4_000_000))


def vllm_chunk(text: str, ids: list[int], completion_tokens: int) -> dict[str, Any]:
    """The chunk shape of vllm-project/vllm PR #45678's test output (`token_ids` on the choice,
    per-chunk `usage` from `continuous_usage_stats`); one engine step may carry several ids."""
    return {"id": "chatcmpl-95f70ae00614b063", "object": "chat.completion.chunk", "created": 1782114956,
            "model": "/model/DeepSeek-V4-Flash",
            "choices": [{"index": 0, "delta": {"content": text}, "logprobs": None, "finish_reason": None,
                         "token_ids": ids}],
            "usage": {"prompt_tokens": 16, "total_tokens": 16 + completion_tokens,
                      "completion_tokens": completion_tokens}}


def test_vllm_chunks_are_steps() -> None:
    dialect = VllmDialect(SETTINGS, gamma=3, speculating=True)
    rounds = feed_all(dialect, [
        vllm_chunk(" fast", [6292], 1),               # the prompt's forward: plain
        vllm_chunk(' "d', [582, 70], 3),              # 1 accepted + corrected
        vllm_chunk("raft", [4420], 4),                # 0 accepted: the target's token
        vllm_chunk(" a b c d", [1, 2, 3, 4], 8),      # all 3 accepted + bonus
        vllm_chunk(" e f g h i j", [5, 6, 7, 8, 9, 10], 14),  # two steps merged while the client lagged
    ])
    assert statuses(rounds) == [[P], [A, C], [C], [A, A, A, B], [A, A, A, B], [A, C]]
    assert all(tok.inferred for r in rounds[1:] for tok in r.tokens)
    assert [r.drafted for r in rounds] == [0, 3, 3, 3, 3, 3]
    assert "".join(r.text for r in rounds) == ' fast "draft a b c d e f g h i j'


def test_vllm_uses_logprob_tokens_for_per_token_text() -> None:
    event = vllm_chunk(" a b", [1, 2], 3)
    event["choices"][0]["logprobs"] = {"content": [{"token": " a", "logprob": -0.1, "bytes": [32, 97]},
                                                   {"token": " b", "logprob": -0.2, "bytes": [32, 98]}]}
    rounds = feed_all(VllmDialect(SETTINGS, gamma=2, speculating=True), [vllm_chunk("x", [9], 1), event])
    assert [tok.text for tok in rounds[1].tokens] == [" a", " b"]


# mostlygeek/llama-swap issue #1032 (a capture of vLLM with `--per-request-spec-decode-metrics
# summary`, PR #48915): the final usage chunk has `choices: []` and top-level `metrics`;
# `detailed` adds `per_step_accepted` (syv-ai/qwen38-27b-rtx3090 issue #66 capture).
VLLM_FINAL = {
    "id": "chatcmpl-1234567", "object": "chat.completion.chunk", "created": 1787366173, "model": "test-model",
    "choices": [],
    "usage": {"prompt_tokens": 11742, "total_tokens": 11777, "completion_tokens": 35},
    "metrics": {"speculative_decoding": {
        "mean_acceptance_length": 1.2325581395348837, "draft_acceptance_rate": 0.07751937984496124,
        "acceptance_histogram": [39, 1, 0, 3], "num_spec_steps": 43, "num_accepted_draft_tokens": 10,
        "num_draft_tokens": 129, "num_spec_tokens": 3}},
}


def test_vllm_request_stats_summary_and_detailed() -> None:
    stats = parse_request_stats(VLLM_FINAL)
    assert stats is not None and stats.num_spec_steps == 43 and stats.num_draft_tokens == 129
    assert stats.num_accepted_draft_tokens == 10 and stats.per_step_accepted is None
    detailed = {**VLLM_FINAL, "metrics": {"speculative_decoding": {
        "num_spec_steps": 3, "num_accepted_draft_tokens": 4, "num_draft_tokens": 9, "num_spec_tokens": 3,
        "per_step_accepted": [3, 0, 1]}}}
    dialect = VllmDialect(SETTINGS, gamma=3, speculating=True)
    feed_all(dialect, [vllm_chunk("a", [1], 1), vllm_chunk("bcd", [2, 3, 4], 4),
                       vllm_chunk("ef", [5, 6], 6), vllm_chunk("gh", [7, 8], 8), detailed])
    assert dialect.reconciled is not None
    assert statuses(dialect.reconciled) == [[P], [A, A, A, B], [C], [A, C]]
    assert dialect.mismatched_steps() == 2  # "bcd" looked like 2 accepted, "ef" like 1


def test_regroup_keeps_the_text() -> None:
    texts = list("abcdefgh")
    rounds = regroup(texts, (2, 0, 1), gamma=2)
    assert "".join(r.text for r in rounds) == "abcdefgh"
    assert statuses(rounds) == [[P], [A, A, B], [C], [A, C], [P]]


def test_regroup_places_steps_that_drafted_nothing_where_the_chunks_show_them() -> None:
    # seen from vLLM 0.32 with n-gram lookup: the first steps find no match (plain, not in the
    # per-step lists), later ones draft fewer than k: per_step_drafted [1, 1, 3]
    texts = list("abcdefghijk")
    rounds = regroup(texts, (1, 1, 3), gamma=3, per_step_drafted=(1, 1, 3), chunk_sizes=[1, 1, 1, 2, 2, 4])
    assert statuses(rounds) == [[P], [P], [P], [A, B], [A, B], [A, A, A, B]]
    assert [r.drafted for r in rounds] == [0, 0, 0, 1, 1, 3]
    assert "".join(r.text for r in rounds) == "abcdefghijk"
    # a step never spans two chunks: a 1-token chunk before a 2-token step is a plain step
    assert layout(5, [2, 2], [1, 1, 1, 2]) is None  # 2 + 2 cannot tile 1 | 1 | 2 after the prompt's token
    assert layout(5, [2], [1, 1, 1, 2]) == [False, False, True]
    assert layout(5, [1, 3], [1, 4]) == [True, True]  # merged chunk: two steps in one


# -- SGLang ---------------------------------------------------------------------------------

# Gauges as sgl-project/sglang python/sglang/srt/metrics/collector.py defines them (prometheus_client
# Gauge "sglang:spec_accept_length" / "sglang:spec_accept_rate", labels from the collector).
SGLANG_METRICS = """# HELP sglang:spec_accept_length The average acceptance length of speculative decoding.
# TYPE sglang:spec_accept_length gauge
sglang:spec_accept_length{model_name="meta-llama/Llama-3.1-8B-Instruct"} 2.75
# HELP sglang:spec_accept_rate The average acceptance rate of speculative decoding.
# TYPE sglang:spec_accept_rate gauge
sglang:spec_accept_rate{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.4375
"""


def test_sglang_gauges() -> None:
    got = parse_gauges(SGLANG_METRICS, ("sglang:spec_accept_length", "sglang:spec_accept_rate"))
    assert got == {"sglang:spec_accept_length": 2.75, "sglang:spec_accept_rate": 0.4375}


def sglang_chunk(text: str, completion_tokens: int, final: bool = False) -> dict[str, Any]:
    """A /generate stream object: {"text", "output_ids", "meta_info"} as
    python/sglang/srt/managers/tokenizer_manager.py builds it; the speculative keys come only
    when the request finished (`_calculate_spec_decoding_metrics`)."""
    meta: dict[str, Any] = {"id": "5799660f", "finish_reason": None, "prompt_tokens": 9,
                            "completion_tokens": completion_tokens, "cached_tokens": 0}
    if final:
        meta |= {"finish_reason": {"type": "length", "length": completion_tokens},
                 "spec_verify_ct": 4, "spec_accept_rate": 0.5, "spec_accept_length": 2.0,
                 "spec_accept_token_num": 4, "spec_draft_token_num": 8}
    return {"text": text, "output_ids": [1], "meta_info": meta}


def test_sglang_generate_stream_cumulative_text() -> None:
    dialect = SglangDialect(SETTINGS, gamma=2, speculating=True)
    rounds = feed_all(dialect, [
        sglang_chunk("The", 1),
        sglang_chunk("The capital of", 3),
        sglang_chunk("The capital of France", 4),
        sglang_chunk("The capital of France is Paris.", 7, final=True),
    ])
    assert statuses(rounds) == [[P], [A, C], [C], [A, A, B]]
    assert "".join(r.text for r in rounds) == "The capital of France is Paris."
    assert dialect.totals is not None and dialect.totals.verify_steps == 4
    assert dialect.totals.accepted == 4 and dialect.totals.proposed == 8 and dialect.totals.accept_length == 1.75


def test_sglang_incremental_text_and_newer_keys() -> None:
    dialect = SglangDialect(SETTINGS, gamma=3, speculating=True)
    rounds = feed_all(dialect, [sglang_chunk("Hi", 1), sglang_chunk(" there", 3)])
    assert "".join(r.text for r in rounds) == "Hi there"
    newer = parse_totals({"completion_tokens": 10, "spec_verify_ct": 4, "spec_num_correct_drafts": 6,
                          "spec_num_proposed_drafts": 12, "spec_correct_drafts_histogram": [1, 1, 2]})
    assert newer is not None and (newer.accepted, newer.proposed) == (6, 12)
    assert parse_totals({"completion_tokens": 3}) is None


# The 0.5.23 wheel's OpenAI endpoints (sglang/srt/entrypoints/openai/serving_completions.py): with
# `return_spec_tokens_details` a chunk with `choices: []` and a response-level `sglext` follows the
# finished request; `SpecTokensDetails` (protocol.py) as `model_dump_json` writes it.
SGLEXT_FINAL = {
    "id": "9c5d1e0a", "object": "text_completion", "created": 1790000000, "model": "m", "choices": [],
    "sglext": {"routed_experts": None, "cached_tokens_details": None, "input_ids": None, "output_ids": None,
               "spec_tokens_details": {
                   "spec_accept_rate": 0.5, "spec_accept_length": 2.0, "spec_cap_length": 0.0,
                   "spec_block_accept_length": 0.0, "spec_num_correct_drafts": 4, "spec_num_proposed_drafts": 12,
                   "spec_verify_ct": 4, "spec_correct_drafts_histogram": [1, 1, 1, 1],
                   "spec_cap_lens_histogram": []}},
}


def test_sglang_sglext_spec_tokens_details() -> None:
    settings = RequestSettings(model="m", prompt="p", raw=False, temperature=0.0, seed=0, max_tokens=8, gamma=3)
    dialect = SglangDialect(settings, gamma=3, speculating=True)
    assert dialect.request()[1]["return_spec_tokens_details"] is True
    chunks = [{"choices": [{"index": 0, "delta": {"content": "ab"}}], "usage": {"completion_tokens": 2}},
              {"choices": [{"index": 0, "delta": {"content": "cde"}}], "usage": {"completion_tokens": 5}},
              {"choices": [{"index": 0, "delta": {"content": "fgh"}}], "usage": {"completion_tokens": 8}},
              SGLEXT_FINAL]
    rounds = feed_all(dialect, chunks)
    assert "".join(r.text for r in rounds) == "abcdefgh"
    totals = dialect.totals
    assert totals is not None and (totals.verify_steps, totals.accepted, totals.proposed) == (4, 4, 12)
    assert totals.completion_tokens == 8 and totals.accept_length == 2.0
    assert totals.per_position == (3, 2, 1)  # steps accepting 1, 2, 3: position 0 three times, …
    listed = {**SGLEXT_FINAL, "sglext": {"spec_tokens_details": [SGLEXT_FINAL["sglext"]["spec_tokens_details"]]}}
    dialect = SglangDialect(settings, gamma=3, speculating=True)
    feed_all(dialect, [listed])
    assert dialect.totals is not None and dialect.totals.verify_steps == 4


def test_speculation_off_gives_plain_rounds() -> None:
    dialect = VllmDialect(SETTINGS, gamma=None, speculating=False)
    rounds = feed_all(dialect, [vllm_chunk("a", [1], 1), vllm_chunk("bc", [2, 3], 3)])
    assert statuses(rounds) == [[P], [P], [P]]


def test_text_without_a_token_is_kept_not_dropped() -> None:
    # A detokenizer may release held-back text in a chunk that adds no token.
    sglang = SglangDialect(SETTINGS, gamma=2, speculating=True)
    rounds = feed_all(sglang, [sglang_chunk("The", 1), sglang_chunk("The caf", 2), sglang_chunk("The café", 2),
                               sglang_chunk("The café is", 3)])
    assert "".join(r.text for r in rounds) == "The café is"
    vllm = VllmDialect(SETTINGS, gamma=2, speculating=True)
    rounds = feed_all(vllm, [vllm_chunk("The", [1], 1), vllm_chunk(" caf", [2], 2), vllm_chunk("é", [], 2),
                             vllm_chunk(" is", [3], 3)])
    assert "".join(r.text for r in rounds) == "The café is"
    assert "".join(vllm.chunks.texts) == "The café is"  # what an exact regrouping would redraw
