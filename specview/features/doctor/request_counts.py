"""The draft counts of one answer to a request of ours, and the checks that say a count lies.

llama-server puts them in `timings` (probe.py reads those); vLLM in `metrics.speculative_decoding`
(with `--per-request-spec-decode-metrics`), SGLang in `sglext.spec_tokens_details` (asked with
`return_spec_tokens_details`; its "proposed" is verify steps × (draft tokens − 1), an upper bound).
A count that fails a check is named with the field it came from, and the request is left out.
"""

from __future__ import annotations

from typing import Any

from specview.backends.remote.kinds.sglang import parse_totals, spec_tokens_details
from specview.backends.remote.kinds.vllm import parse_request_stats
from specview.boundary.bounds import MAX_ROUND_DRAFTS, Invalid
from specview.texts.catalog import Phrase


def engine_counts(answer: dict[str, Any]) -> tuple[int, int, str] | None:
    """(accepted, drafted, source) from vLLM's or SGLang's per-request stats in a non-streamed
    answer, None when it has neither. Invalid (from the parsers, or here: vLLM's per-step lists
    must add up to its totals) when a count fails its check."""
    stats = parse_request_stats(answer)
    if stats is not None:
        where = "metrics.speculative_decoding"
        for key, steps, total in (("per_step_accepted", stats.per_step_accepted, stats.num_accepted_draft_tokens),
                                  ("per_step_drafted", stats.per_step_drafted, stats.num_draft_tokens)):
            if steps is not None and sum(steps) != total:  # the steps are the request's rounds: they add up
                raise Invalid(Phrase("request_spread.lies.steps", where=f"{where}.{key}", steps=len(steps),
                                     sum=sum(steps), total=total))
        return stats.num_accepted_draft_tokens, stats.num_draft_tokens, where
    details = spec_tokens_details(answer)
    if details is not None:
        totals = parse_totals(details, None, "sglext.spec_tokens_details")
        if totals is not None and totals.accepted is not None and totals.proposed is not None:
            return totals.accepted, totals.proposed, "sglext.spec_tokens_details"
    return None


def lies(where: str, accepted: int, drafted: int, tokens: int | None) -> Phrase | None:
    """Why a probe's counts cannot be a request's, else None: accepted above drafted, or more
    drafted than `tokens` rounds could draft (each round makes a token and drafts at most
    MAX_ROUND_DRAFTS). Accepted above the tokens made is not refused: a request cut at its
    max_tokens may count drafts it accepted past the cut."""
    if accepted > drafted:
        return Phrase("request_spread.lies.over_drafted", where=where, accepted=accepted, drafted=drafted)
    if tokens is not None and drafted > tokens * MAX_ROUND_DRAFTS:
        return Phrase("request_spread.lies.too_many", where=where, drafted=drafted, tokens=tokens,
                      most=MAX_ROUND_DRAFTS)
    return None
