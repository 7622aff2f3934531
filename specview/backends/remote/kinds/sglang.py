"""SGLang: Δcompletion_tokens per chunk ≈ tokens of one verify step (inferred); exact totals at the end.

With `--raw` the native `/generate` endpoint streams `{"text", "output_ids", "meta_info"}`
objects; `meta_info.completion_tokens` is on every chunk and the speculative counts
(`spec_verify_ct`, accepted / proposed drafts) arrive when the request finishes
(`_calculate_spec_decoding_metrics` in
https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/managers/tokenizer_manager.py).
`text` is the whole output so far, or only the new part with `--incremental-streaming-output`;
both are handled. Chat goes through `/v1/chat/completions` with `continuous_usage_stats`
(SGLang PR #12241), where `usage.completion_tokens` gives the same Δ, and asks for
`return_spec_tokens_details`: the request's counts then come, after it finished, in an extra
chunk with `choices: []` and a response-level `sglext.spec_tokens_details` (a list when n > 1;
read from the 0.5.23 wheel, `SglExt` in `sglang.srt.entrypoints.openai.protocol` and
`spec_tokens_details_from_meta_info` in its `utils`; the older `sglext_spec` and alias keys are gone).
`spec_num_proposed_drafts` there is verify steps × (draft tokens − 1): an upper bound, not a
count (it is what SGLang's own accept rate divides by, and what specview's drafted then says).
These totals end the request as a `Totals` (exact totals, rounds inferred). Outputs that pile
up while the client is slow are concatenated (`_coalesce_streaming_chunks`), so steps can merge
as with vLLM.

SGLang cannot run on this machine (CUDA wheels; its CPU backend targets AMX Xeons and installs
from source): this dialect is checked against recorded and published formats only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from specview.backends.remote.dialect import (
    Dialect,
    GroupedChunks,
    RequestSettings,
    chunk_text,
    counter,
    new_tokens,
    openai_request,
    spread,
    usage_tokens,
)
from specview.backends.remote.kinds.vllm import grouped_note
from specview.backends.remote.server_kind import AT_REQUEST_END, INFERRED, Probe, ServerFacts, ServerKind
from specview.boundary.bounds import MAX_POSITION, MAX_ROUND_DRAFTS, sequence
from specview.features.live.real_run import ServerProgram
from specview.kernel.backend import Note
from specview.kernel.events import Round
from specview.kernel.totals import Totals

__all__ = ["SGLANG"]  # the unit the plugin surface registers (specview/plugins/)

# current names first; older builds' names after (PR #13754 sample; the alias keys)
_ACCEPTED_KEYS = ("spec_num_correct_drafts", "spec_accept_token_num", "spec_accepted_drafts")
_PROPOSED_KEYS = ("spec_num_proposed_drafts", "spec_draft_token_num", "spec_proposed_drafts")


@dataclass(frozen=True, slots=True)
class SglangTotals:
    """The exact per-request counts SGLang reports when a request finishes."""

    verify_steps: int
    completion_tokens: int
    accepted: int | None
    proposed: int | None  # an upper bound in current builds (verify steps × (draft tokens − 1))
    histogram: tuple[int, ...] = ()  # steps that accepted exactly 0, 1, 2, … drafts

    @property
    def per_position(self) -> tuple[int, ...]:
        """Accepted drafts at each position, from the histogram (a step with a accepted
        accepted positions 0 … a − 1)."""
        return tuple(sum(self.histogram[a] for a in range(k + 1, len(self.histogram)))
                     for k in range(max(0, len(self.histogram) - 1)))

    @property
    def accept_length(self) -> float | None:
        """Tokens per verify step, SGLang's own `completion_tokens / spec_verify_ct`."""
        return self.completion_tokens / self.verify_steps if self.verify_steps else None

    def totals(self, gamma: int | None, source: str) -> Totals | None:
        """As specview's Totals (checked: bounds.Invalid names `source`), or None when the
        counts are too few: accepted drafts from the histogram where the count is missing,
        drafted from verify steps × γ where the proposed count is."""
        accepted = self.accepted
        if accepted is None and self.histogram:
            accepted = sum(a * steps for a, steps in enumerate(self.histogram))
        drafted = self.proposed if self.proposed is not None else self.verify_steps * gamma if gamma else None
        if accepted is None or drafted is None:
            return None
        # no completion count (0) is no count: the stream's own stands in for it
        return Totals(drafted, accepted, self.per_position if self.histogram else None, self.verify_steps,
                      self.completion_tokens or None, source)


def _first_int(meta: dict[str, Any], keys: tuple[str, ...], where: str) -> int | None:
    for key in keys:
        value = counter(meta.get(key), f"{where}.{key}")
        if value is not None:
            return value
    return None


def parse_totals(meta: dict[str, Any], completion_tokens: int | None = None,
                 where: str = "meta_info") -> SglangTotals | None:
    """Final counts from a `meta_info` or an `sglext.spec_tokens_details` (`where` names it in
    errors), or None before the request finished. Counts out of bounds are Invalid."""
    verify = counter(meta.get("spec_verify_ct"), f"{where}.spec_verify_ct")
    if verify is None:
        return None
    field = f"{where}.spec_correct_drafts_histogram"
    hist = meta.get("spec_correct_drafts_histogram")
    # steps that accepted 0 … MAX_POSITION drafts: one entry more than there are positions
    entries = sequence(hist, field, MAX_POSITION + 1) if hist is not None else []
    histogram = tuple(counter(h, f"{field}[{i}]") or 0 for i, h in enumerate(entries))
    done = counter(meta.get("completion_tokens"), f"{where}.completion_tokens")
    return SglangTotals(
        verify_steps=verify,
        completion_tokens=(completion_tokens or 0) if done is None else done,
        accepted=_first_int(meta, _ACCEPTED_KEYS, where),
        proposed=_first_int(meta, _PROPOSED_KEYS, where),
        histogram=histogram,
    )


def spec_tokens_details(event: dict[str, Any]) -> dict[str, Any] | None:
    """The response-level `sglext.spec_tokens_details` of an OpenAI-endpoint chunk (the first
    choice's when it is a list), or None."""
    ext = event.get("sglext")
    details = ext.get("spec_tokens_details") if isinstance(ext, dict) else None
    if isinstance(details, list):
        details = details[0] if details else None
    return details if isinstance(details, dict) else None


class SglangDialect(Dialect):
    """Δcompletion_tokens grouping for /generate (raw) or chat completions."""

    name = "sglang"

    def __init__(self, settings: RequestSettings, gamma: int | None, speculating: bool) -> None:
        super().__init__(settings)
        self.chunks = GroupedChunks(gamma, speculating)
        self._completion = 0
        self._text = ""
        self.totals: SglangTotals | None = None
        self._exact: Totals | None = None

    def request(self) -> tuple[str, dict[str, Any]]:
        s = self.settings
        if s.raw:
            params = {"temperature": s.temperature, "max_new_tokens": s.max_tokens}
            return "/generate", {"text": s.prompt, "sampling_params": params, "stream": True}
        return openai_request(s, {"stream_options": {"include_usage": True, "continuous_usage_stats": True},
                                  "return_spec_tokens_details": True})

    def feed(self, event: dict[str, Any], t: float) -> list[Round]:
        meta = event.get("meta_info")
        if isinstance(meta, dict):
            text = self._new_text(event.get("text"))
            done = counter(meta.get("completion_tokens"), "meta_info.completion_tokens")
            totals = parse_totals(meta)
            if totals is not None and meta.get("finish_reason") is not None:
                self._told(totals, "meta_info")
        else:
            details = spec_tokens_details(event)
            if details is not None:
                self._told(parse_totals(details, self._completion, "sglext.spec_tokens_details"),
                           "sglext.spec_tokens_details")
            text = chunk_text(event)
            done = usage_tokens(event)
        if done is not None:
            n = new_tokens(self._completion, done, "completion_tokens")
            self._completion = done
        else:
            n = 1 if text else 0
        if n <= 0:
            self.chunks.late_text(text)
            return []
        return self.chunks.add(spread(text, n), t)

    def _told(self, totals: SglangTotals | None, source: str) -> None:
        """The request's final counts arrived: checked now, so an error names the chunk."""
        self.totals = totals
        self._exact = totals.totals(self.chunks.gamma, source) if totals is not None else None

    def _new_text(self, text: object) -> str:
        if not isinstance(text, str):
            return ""
        if text.startswith(self._text):
            new, self._text = text[len(self._text):], text
        else:
            new, self._text = text, self._text + text
        return new

    def finish(self, t: float) -> list[Round]:
        self.chunks.flush()
        return []

    def request_totals(self) -> Totals | None:
        return self._exact


class SglangKind(ServerKind):
    """SGLang: /get_server_info (older builds /server_info) names the speculative algorithm."""

    id = "sglang"
    title = "SGLang"
    priority = 30
    engine = ServerProgram("SGLang", 30000)
    owners = ("sglang",)
    # no speculative counters, only batch-wide gauges:
    # https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/metrics/collector.py
    tokens_counter = "sglang:generation_tokens_total"
    active_gauge = "sglang:num_running_reqs"
    watch_gauges = ("sglang:spec_accept_length", "sglang:spec_accept_rate")
    counters_update = AT_REQUEST_END  # generation_tokens_total, as spec_verify_calls_total: when a request ends
    # τ from counters, a check on the accept-length gauge (`observe_one_finished_request`, 0.5.23)
    verify_counter = "sglang:spec_verify_calls_total"
    requests_counter = "sglang:num_requests_total"
    # spec_accept_rate divides by verify steps × (this − 1), the configured width (sglang#34814)
    width_gauge = "sglang:spec_num_draft_tokens"

    def identify(self, conn: Probe) -> Any | None:
        return conn.probe_json(f"{conn.root}/get_server_info") or conn.probe_json(f"{conn.root}/server_info")

    def recognised(self, identified: Any | None) -> bool:
        return isinstance(identified, dict) and "speculative_algorithm" in identified

    def facts(self, conn: Probe, identified: Any | None, gamma: int | None) -> ServerFacts:
        info = identified if isinstance(identified, dict) else {}
        n_draft = info.get("speculative_num_draft_tokens")
        ok = isinstance(n_draft, int) and not isinstance(n_draft, bool) and 1 < n_draft <= MAX_ROUND_DRAFTS + 1
        drafts = n_draft - 1 if ok and isinstance(n_draft, int) else None
        build = str(info["version"])[:100] if "version" in info else None
        speculating = bool(info.get("speculative_algorithm")) or gamma is not None
        return ServerFacts(self.id, build, gamma or drafts, speculating, self.has_metrics(conn))

    def describe(self, facts: ServerFacts) -> tuple[dict[str, bool], Note]:
        return dict(INFERRED), grouped_note(self.server_name(facts), facts.speculating)

    def dialect(self, settings: RequestSettings, facts: ServerFacts) -> Dialect:
        return SglangDialect(settings, facts.gamma, facts.speculating)


SGLANG = SglangKind()
