"""vLLM: one stream chunk per engine step, so a chunk's tokens are accepted + 1 (inferred).

The request asks for `return_token_ids` and `stream_options: {include_usage,
continuous_usage_stats}` so each chunk says how many tokens it carries (vLLM issue #27482,
PR #6652), and for `logprobs` so each token's own text is known. Steps merge when the client
lags (`RequestOutputCollector` in
https://github.com/vllm-project/vllm/blob/main/vllm/v1/engine/output_processor.py), so the stream is read
promptly and over-long chunks are split. γ comes from `--gamma`, else from the number of
`position` series of `vllm:spec_decode_num_accepted_tokens_per_pos` (one per speculative
token, https://github.com/vllm-project/vllm/blob/main/vllm/v1/spec_decode/metrics.py). Servers started with
`--per-request-spec-decode-metrics detailed` (PR #48915) end with `per_step_accepted`;
`reconciled` then holds the exact rounds, regrouped from it; servers that send only the
request's counts (no per-step list) end it with those as Totals (exact totals, rounds inferred).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from specview.backends.remote.dialect import (
    Dialect,
    GroupedChunks,
    RequestSettings,
    RoundMaker,
    chunk_text,
    counter,
    new_tokens,
    openai_request,
    spread,
    usage_tokens,
)
from specview.backends.remote.metrics import parse_draft_counters, parse_sums
from specview.backends.remote.server_kind import (
    AT_STEP,
    DIFFUSION_METHOD,
    INFERRED,
    Probe,
    ServerFacts,
    ServerKind,
)
from specview.boundary.bounds import MAX_CHUNK_TOKENS, MAX_ROUND_DRAFTS, Invalid, integer, sequence
from specview.boundary.text import sanitize
from specview.features.live.real_run import ServerProgram
from specview.kernel.backend import Note
from specview.kernel.events import Round
from specview.kernel.totals import Totals
from specview.texts.catalog import Phrase

__all__ = ["VLLM"]  # the unit the plugin surface registers (specview/plugins/)

MAX_STEPS = 1_000_000  # entries of per_step_accepted (one per verify step of one request)
# a diffusion LM's counter, exported through the speculative path (vLLM ≥ 0.32, https://github.com/vllm-project/vllm/blob/main/vllm/v1/spec_decode/metrics.py)
DIFFUSION_STEPS = "vllm:diffusion_num_denoising_steps_total"


@dataclass(frozen=True, slots=True)
class VllmRequestStats:
    """`metrics.speculative_decoding` of the final usage chunk (PR #48915)."""

    num_spec_steps: int
    num_draft_tokens: int
    num_accepted_draft_tokens: int
    num_spec_tokens: int | None
    per_step_accepted: tuple[int, ...] | None
    # drafts per step: fewer than k when n-gram lookup finds a short match, and k varies with
    # the batch size since PR #32374, so k is never assumed when this is known
    per_step_drafted: tuple[int, ...] | None = None


def parse_request_stats(event: dict[str, Any]) -> VllmRequestStats | None:
    """The per-request speculative stats, from the top-level `metrics` or a choice's
    `speculative_decoding_stats` (the shape ai-dynamo/aiperf PR #1167 describes)."""
    found: Any = None
    metrics = event.get("metrics")
    if isinstance(metrics, dict):
        found = metrics.get("speculative_decoding")
    choices = event.get("choices")
    if found is None and isinstance(choices, list) and choices and isinstance(choices[0], dict):
        found = choices[0].get("speculative_decoding_stats")
    if not isinstance(found, dict):
        return None
    where = "speculative_decoding"
    per_step = _steps(found, "per_step_accepted", where)
    drafted = _steps(found, "per_step_drafted", where)
    if per_step is not None and drafted is not None:
        if len(drafted) != len(per_step):
            raise Invalid(Phrase("backenderr.vllm.steps_differ", where=where, drafted=len(drafted),
                                 accepted=len(per_step)))
        for i, (made, took) in enumerate(zip(drafted, per_step, strict=True)):
            if took > made:
                raise Invalid(Phrase("backenderr.vllm.step_over", where=where, i=i, took=took, made=made))
    spec_tokens = found.get("num_spec_tokens")
    return VllmRequestStats(
        num_spec_steps=counter(found.get("num_spec_steps"), f"{where}.num_spec_steps") or 0,
        num_draft_tokens=counter(found.get("num_draft_tokens"), f"{where}.num_draft_tokens") or 0,
        num_accepted_draft_tokens=counter(found.get("num_accepted_draft_tokens"),
                                          f"{where}.num_accepted_draft_tokens") or 0,
        num_spec_tokens=None if spec_tokens is None else integer(spec_tokens, f"{where}.num_spec_tokens",
                                                                  1, MAX_ROUND_DRAFTS),
        per_step_accepted=per_step,
        per_step_drafted=drafted,
    )


def _steps(found: dict[str, Any], key: str, where: str) -> tuple[int, ...] | None:
    """A per-step list (`per_step_accepted`, `per_step_drafted`): None when absent; a list of
    at most MAX_STEPS counts of 0…MAX_ROUND_DRAFTS, or Invalid naming the field."""
    steps = found.get(key)
    if steps is None:
        return None
    items = sequence(steps, f"{where}.{key}", MAX_STEPS)
    return tuple(integer(x, f"{where}.{key}[{i}]", 0, MAX_ROUND_DRAFTS) for i, x in enumerate(items))


def token_texts(event: dict[str, Any], n: int) -> list[str]:
    """Per-token texts from `logprobs` when they cover the chunk's `n` tokens, else spread."""
    text = chunk_text(event)
    choice = event["choices"][0] if event.get("choices") else {}
    logprobs = choice.get("logprobs") if isinstance(choice, dict) else None
    pieces: list[str] | None = None
    if isinstance(logprobs, dict):
        content = logprobs.get("content")
        if isinstance(content, list):  # chat: [{"token": …, "logprob": …}, …]
            pieces = [str(item.get("token", "")) for item in content if isinstance(item, dict)]
        elif isinstance(logprobs.get("tokens"), list):  # completions: {"tokens": […], …}
            pieces = [str(tok) for tok in logprobs["tokens"]]
    if pieces is not None and len(pieces) == n and "".join(pieces) == text:
        return pieces
    return spread(text, n)


def regroup(texts: list[str], per_step_accepted: tuple[int, ...], gamma: int,
            per_step_drafted: tuple[int, ...] | None = None,
            chunk_sizes: list[int] | None = None) -> list[Round]:
    """The exact rounds: the prompt's token, then per step `accepted` drafts and one more.

    Steps that drafted nothing (n-gram lookup found no match) are not in the per-step lists;
    their tokens are plain rounds. Where they fell is read from the streamed chunks: a step's
    tokens never span two chunks, so `layout` finds a tiling of the chunks by the steps in
    order plus plain tokens. Without chunk sizes (or with none that fit) they go last.
    """
    drafted = per_step_drafted or (gamma,) * len(per_step_accepted)
    plan = layout(len(texts), [a + 1 for a in per_step_accepted], chunk_sizes) if chunk_sizes else None
    maker = RoundMaker()
    rounds = [maker.plain(texts[0], 0.0)] if texts else []
    at, step = 1, 0
    for is_step in plan or [True] * len(per_step_accepted):
        if not is_step:
            rounds.append(maker.plain(texts[at], 0.0))
            at += 1
            continue
        accepted = per_step_accepted[step]
        group = texts[at : at + accepted + 1]
        if not group:
            break
        rounds.append(maker.drafted(max(drafted[step], accepted), accepted, group, 0.0, None, inferred=False))
        at += accepted + 1
        step += 1
    rounds += [maker.plain(text, 0.0) for text in texts[at:]]
    return rounds


MAX_LAYOUT_CELLS = 4_000_000  # tokens × steps; beyond it plain steps simply go last


def layout(total: int, sizes: list[int], chunk_sizes: list[int]) -> list[bool] | None:
    """After the prompt's token: True for each speculative step (of `sizes` tokens, in order),
    False for each plain token, so that no step spans two chunks; None when nothing fits."""
    if sum(chunk_sizes) != total or total < 1 or (total + 1) * (len(sizes) + 1) > MAX_LAYOUT_CELLS:
        return None
    chunk_end = [0] * (total + 1)  # chunk_end[p]: end (exclusive) of the chunk holding position p
    at = 0
    for size in chunk_sizes:
        for p in range(at, at + size):
            chunk_end[p] = at + size
        at += size
    n = len(sizes)
    # ok[j][p]: positions p… can be tiled by steps j… and plain tokens (bitmask over p)
    ok = [0] * (n + 1)
    ok[n] = (1 << (total + 1)) - 1  # the rest plain
    for j in range(n - 1, -1, -1):
        mask = 0
        for p in range(total, 0, -1):
            end = p + sizes[j]
            fits = end <= chunk_end[p] and (ok[j + 1] >> end) & 1
            plain = p < total and (mask >> (p + 1)) & 1
            if fits or plain:
                mask |= 1 << p
        ok[j] = mask
    return _walk(ok, sizes, chunk_end, total) if (ok[0] >> 1) & 1 else None


def _walk(ok: list[int], sizes: list[int], chunk_end: list[int], total: int) -> list[bool]:
    """Follow the table from position 1, taking a step wherever one fits."""
    plan: list[bool] = []
    p, j = 1, 0
    while p < total or j < len(sizes):
        end = p + sizes[j] if j < len(sizes) else total + 1
        if j < len(sizes) and end <= chunk_end[p] and (ok[j + 1] >> end) & 1:
            plan.append(True)
            p, j = end, j + 1
        else:
            plan.append(False)
            p += 1
    return plan


class VllmDialect(Dialect):
    """Grouped chunks, with γ from the settings or from /metrics."""

    name = "vllm"

    def __init__(self, settings: RequestSettings, gamma: int | None, speculating: bool) -> None:
        super().__init__(settings)
        self.chunks = GroupedChunks(gamma, speculating)
        self._usage = 0
        self.request_stats: VllmRequestStats | None = None
        self.reconciled: list[Round] | None = None

    def request(self) -> tuple[str, dict[str, Any]]:
        extra: dict[str, Any] = {
            "stream_options": {"include_usage": True, "continuous_usage_stats": True},
            "return_token_ids": True,
            "logprobs": 0 if self.settings.raw else True,
        }
        return openai_request(self.settings, extra)

    def feed(self, event: dict[str, Any], t: float) -> list[Round]:
        stats = parse_request_stats(event)
        if stats is not None:
            self.request_stats = stats
        choices = event.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return []
        ids = choices[0].get("token_ids")
        used = usage_tokens(event)
        if isinstance(ids, list):
            n = len(sequence(ids, "choices[0].token_ids", MAX_CHUNK_TOKENS))
        elif used is not None:
            n = new_tokens(self._usage, used, "usage.completion_tokens")
        else:
            n = 1 if chunk_text(event) else 0
        if used is not None:
            self._usage = used
        if n <= 0:
            self.chunks.late_text(chunk_text(event))
            return []
        return self.chunks.add(token_texts(event, n), t)

    def finish(self, t: float) -> list[Round]:
        self.chunks.flush()
        stats = self.request_stats
        if stats is not None and stats.per_step_accepted is not None:
            gamma = stats.num_spec_tokens or self.chunks.gamma or max(stats.per_step_accepted, default=1)
            self.reconciled = regroup(self.chunks.texts, stats.per_step_accepted, gamma,
                                      stats.per_step_drafted, self.chunks.sizes)
        return []

    def exact_rounds(self) -> list[Round] | None:
        """The rounds regrouped from `per_step_accepted` (and `per_step_drafted`), when they
        differ from the streamed ones."""
        if self.reconciled is None:
            return None
        return self.reconciled if self.mismatched_steps() or self._drafted_differ() else None

    def request_totals(self) -> Totals | None:
        """The request's counts, when no per-step list already gave its exact rounds."""
        stats = self.request_stats
        if stats is None or stats.per_step_accepted is not None:
            return None
        return Totals(stats.num_draft_tokens, stats.num_accepted_draft_tokens, None, stats.num_spec_steps,
                      self._usage or None, "speculative_decoding")

    def _drafted_differ(self) -> bool:
        stats = self.request_stats
        drafted = stats.per_step_drafted if stats is not None else None
        return drafted is not None and any(d != (self.chunks.gamma or d) for d in drafted)

    def mismatched_steps(self) -> int | None:
        """How many inferred rounds disagree with `per_step_accepted` (None without it)."""
        if self.reconciled is None:
            return None
        stats = self.request_stats
        assert stats is not None and stats.per_step_accepted is not None
        seen = self.chunks.accepted_per_step
        want = stats.per_step_accepted
        return sum(1 for a, b in zip(seen, want, strict=False) if a != b) + abs(len(seen) - len(want))


class VllmKind(ServerKind):
    """vLLM: /version names the build; /metrics tells γ (one `position` series per draft)."""

    id = "vllm"
    title = "vLLM"
    priority = 20
    engine = ServerProgram("vLLM", 8000)
    owners = ("vllm",)
    metrics_prefix = "vllm"
    tokens_counter = "vllm:generation_tokens_total"
    active_gauge = "vllm:num_requests_running"
    counters_update = AT_STEP
    diffusion_counter = DIFFUSION_STEPS
    reconciles = True

    def identify(self, conn: Probe) -> Any | None:
        return conn.probe_json(f"{conn.root}/version")

    def recognised(self, identified: Any | None) -> bool:
        return isinstance(identified, dict) and "version" in identified

    def facts(self, conn: Probe, identified: Any | None, gamma: int | None) -> ServerFacts:
        text = conn.probe_text(f"{conn.root}/metrics")
        counters = parse_draft_counters(text, "vllm") if text is not None else None
        build = str(identified.get("version"))[:100] if isinstance(identified, dict) else None
        width = len(counters.per_position) if counters is not None else 0
        if counters is None and text is not None and DIFFUSION_STEPS in parse_sums(text, (DIFFUSION_STEPS,)):
            # a diffusion LM: its denoising steps go out through the speculative path, renamed
            return ServerFacts(self.id, build, None, False, True, DIFFUSION_METHOD, (Note("vllm_diffusion"),))
        config = speculative_config(conn)
        method = sanitize(str(config["method"]), 60, one_line=True) if isinstance(config.get("method"), str) else None
        speculating = counters is not None or gamma is not None or method is not None
        return ServerFacts(self.id, build, gamma or (width or None), speculating, counters is not None, method,
                           rejection_notes(config))

    def describe(self, facts: ServerFacts) -> tuple[dict[str, bool], Note]:
        return dict(INFERRED), grouped_note(self.server_name(facts), facts.speculating)

    def dialect(self, settings: RequestSettings, facts: ServerFacts) -> Dialect:
        return VllmDialect(settings, facts.gamma, facts.speculating)


def speculative_config(conn: Probe) -> dict[str, Any]:
    """`speculative_config` of the server's own config ({} where it does not tell): vLLM serves
    it at /server_info only in its dev mode (`VLLM_SERVER_DEV_MODE=1`)."""
    info = conn.probe_json(f"{conn.root}/server_info?config_format=json")
    config = info.get("vllm_config") if isinstance(info, dict) else None
    found = config.get("speculative_config") if isinstance(config, dict) else None
    return found if isinstance(found, dict) else {}


def rejection_notes(config: dict[str, Any]) -> tuple[Note, ...]:
    """What the verification rule makes of the numbers: FLy (vLLM 0.33) accepts drafts the target
    would not have produced (lossy: the output is not the target's); synthetic accepts at set rates
    (the acceptance shown is the configured one, not the drafter's)."""
    rule = config.get("rejection_sample_method")
    return {"fly": (Note("vllm_fly_lossy"),), "synthetic": (Note("vllm_synthetic"),)}.get(rule, ()) \
        if isinstance(rule, str) else ()


def grouped_note(server: str, speculating: bool) -> Note:
    """The note of a server whose rounds are inferred from stream chunks (vLLM, SGLang)."""
    return Note("grouped" if speculating else "no_spec_named", {"server": server})


VLLM = VllmKind()
