"""SGLang: Δcompletion_tokens per chunk ≈ tokens of one verify step (inferred); exact totals at the end.

With `--raw` the native `/generate` endpoint streams `{"text", "output_ids", "meta_info"}`
objects; `meta_info.completion_tokens` is on every chunk and the speculative counts
(`spec_verify_ct`, accepted / proposed drafts) arrive when the request finishes
(python/sglang/srt/managers/tokenizer_manager.py, `_calculate_spec_decoding_metrics`).
`text` is the whole output so far, or only the new part with `--incremental-streaming-output`;
both are handled. Chat goes through `/v1/chat/completions` with `continuous_usage_stats`
(SGLang PR #12241), where `usage.completion_tokens` gives the same Δ. Outputs that pile up
while the client is slow are merged (`out_list[-1]`), so steps can merge as with vLLM.
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
from specview.backends.remote.server_kind import INFERRED, Probe, ServerFacts, ServerKind
from specview.backends.remote.vllm import grouped_note
from specview.core.backend import Note
from specview.core.bounds import MAX_ROUND_DRAFTS
from specview.core.events import Round

_ACCEPTED_KEYS = ("spec_accept_token_num", "spec_num_correct_drafts", "spec_accepted_drafts")
_PROPOSED_KEYS = ("spec_draft_token_num", "spec_num_proposed_drafts", "spec_proposed_drafts")


@dataclass(frozen=True, slots=True)
class SglangTotals:
    """The exact per-request counts SGLang reports when a request finishes."""

    verify_steps: int
    completion_tokens: int
    accepted: int | None
    proposed: int | None

    @property
    def accept_length(self) -> float | None:
        """Tokens per verify step, SGLang's own `completion_tokens / spec_verify_ct`."""
        return self.completion_tokens / self.verify_steps if self.verify_steps else None


def _first_int(meta: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        value = counter(meta.get(key), f"meta_info.{key}")
        if value is not None:
            return value
    return None


def parse_totals(meta: dict[str, Any]) -> SglangTotals | None:
    """Final counts from a `meta_info`, or None before the request finished."""
    verify = counter(meta.get("spec_verify_ct"), "meta_info.spec_verify_ct")
    if verify is None:
        return None
    return SglangTotals(
        verify_steps=verify,
        completion_tokens=counter(meta.get("completion_tokens"), "meta_info.completion_tokens") or 0,
        accepted=_first_int(meta, _ACCEPTED_KEYS),
        proposed=_first_int(meta, _PROPOSED_KEYS),
    )


class SglangDialect:
    """Δcompletion_tokens grouping for /generate (raw) or chat completions."""

    name = "sglang"

    def __init__(self, settings: RequestSettings, gamma: int | None, speculating: bool) -> None:
        self.settings = settings
        self.chunks = GroupedChunks(gamma, speculating)
        self._completion = 0
        self._text = ""
        self.totals: SglangTotals | None = None

    def request(self) -> tuple[str, dict[str, Any]]:
        s = self.settings
        if s.raw:
            params = {"temperature": s.temperature, "max_new_tokens": s.max_tokens}
            return "/generate", {"text": s.prompt, "sampling_params": params, "stream": True}
        return openai_request(s, {"stream_options": {"include_usage": True, "continuous_usage_stats": True}})

    def feed(self, event: dict[str, Any], t: float) -> list[Round]:
        meta = event.get("meta_info")
        if isinstance(meta, dict):
            text = self._new_text(event.get("text"))
            done = counter(meta.get("completion_tokens"), "meta_info.completion_tokens")
            totals = parse_totals(meta)
            if totals is not None and meta.get("finish_reason") is not None:
                self.totals = totals
        else:
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

    def exact_rounds(self) -> list[Round] | None:
        return None

    def missing_statistics(self) -> Note | None:
        return None


class SglangKind(ServerKind):
    """SGLang: /get_server_info (older builds /server_info) names the speculative algorithm."""

    id = "sglang"
    title = "SGLang"
    owners = ("sglang",)

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
