"""What every server dialect shares: request settings, round building, chunk text.

A dialect turns decoded stream events into Rounds. `feed` returns the rounds an event
completed (often none: a round is closed when the next one starts), `finish` the rest;
`exact_rounds` and `request_totals` what the server told at the end of the request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from specview.boundary.bounds import MAX_CHUNK_TOKENS, MAX_COUNTER, MAX_ROUND_DRAFTS, Invalid, increase
from specview.boundary.text import shown
from specview.kernel.backend import Note
from specview.kernel.events import Round, TokenEvent, TokenStatus
from specview.kernel.totals import Totals
from specview.texts.catalog import Phrase

DEFAULT_PROMPT = "Write a short story about a lighthouse keeper who counts the ships that pass."
DEFAULT_MAX_TOKENS = 128


@dataclass(frozen=True, slots=True)
class RequestSettings:
    """What the user asked for, as every dialect needs it."""

    model: str
    prompt: str
    raw: bool
    temperature: float
    seed: int
    max_tokens: int
    gamma: int | None


class Dialect:
    """One server family's request shape and stream reading.

    The defaults are what a family without anything more to tell does: the OpenAI request,
    nothing held at the end, no exact rounds, no totals, no missing statistics. A family
    overrides `feed` and whatever else differs. An engine that reports only end-of-request
    totals reads them in `feed` (its final chunk) and returns them from `request_totals`.
    """

    name = "openai"

    def __init__(self, settings: RequestSettings) -> None:
        self.settings = settings

    def request(self) -> tuple[str, dict[str, Any]]:
        """(path relative to the server root, JSON body) of the streaming request."""
        return openai_request(self.settings)

    def feed(self, event: dict[str, Any], t: float) -> list[Round]:
        """Rounds completed by this event (arrived at monotonic time `t`)."""
        raise NotImplementedError

    def finish(self, t: float) -> list[Round]:
        """Rounds still open when the stream ended."""
        return []

    def exact_rounds(self) -> list[Round] | None:
        """At the end of a request: exact rounds that replace the streamed ones, when the server
        told them and they differ from what was shown (else None)."""
        return None

    def request_totals(self) -> Totals | None:
        """At the end of a request: its exact totals, when the server told them (else None).
        The backend yields them after the request's rounds (and its exact rounds, if any)."""
        return None

    def missing_statistics(self) -> Note | None:
        """Why the stream lacked the statistics this dialect reads (None when it had them)."""
        return None


def openai_request(s: RequestSettings, extra: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """The /v1/chat/completions (or /v1/completions with raw) body every OpenAI server takes."""
    body: dict[str, Any] = {
        "model": s.model,
        "stream": True,
        "max_tokens": s.max_tokens,
        "temperature": s.temperature,
        "seed": s.seed,
    }
    if s.raw:
        path = "/v1/completions"
        body["prompt"] = s.prompt
    else:
        path = "/v1/chat/completions"
        body["messages"] = [{"role": "user", "content": s.prompt}]
    body.update(extra or {})
    return path, body


def chunk_text(event: dict[str, Any]) -> str:
    """The text an OpenAI-style (or llama.cpp native) chunk adds; '' when it adds none."""
    choices = event.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        choice = choices[0]
        delta = choice.get("delta")
        if isinstance(delta, dict):
            parts = [delta.get("reasoning_content"), delta.get("content")]
            return "".join(p for p in parts if isinstance(p, str))
        text = choice.get("text")
        return text if isinstance(text, str) else ""
    content = event.get("content")
    return content if isinstance(content, str) else ""


def counter(value: Any, field: str) -> int | None:
    """A cumulative count from a server: None when absent, else a whole number in [0, 2^53]
    (an integral float counts); anything else (a string, NaN, -1, 1e300) is Invalid."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNTER:
        raise Invalid(Phrase("backenderr.dialect.not_count", field=field, value=shown(value), most=MAX_COUNTER))
    return value


def usage_tokens(event: dict[str, Any]) -> int | None:
    """Cumulative completion tokens from a chunk's `usage`, when the server sends it."""
    usage = event.get("usage")
    if isinstance(usage, dict):
        return counter(usage.get("completion_tokens"), "usage.completion_tokens")
    return None


def new_tokens(before: int, after: int, field: str) -> int:
    """How many tokens a chunk added by a cumulative count: at most MAX_CHUNK_TOKENS, never
    negative (a count that goes back is Invalid, a jump of millions is never allocated)."""
    return increase(before, after, field, MAX_CHUNK_TOKENS)


def spread(text: str, n: int) -> list[str]:
    """Text for `n` tokens when only their joint text is known: all of it on the last one."""
    return [""] * (n - 1) + [text] if n > 0 else []


class RoundMaker:
    """Numbers rounds and builds them from statuses."""

    def __init__(self) -> None:
        self.index = 0

    def plain(self, text: str, t: float, t_verify_s: float | None = None, inferred: bool = False) -> Round:
        token = TokenEvent(None, text, TokenStatus.PLAIN, inferred=inferred)
        return self._make(0, (token,), t, t_verify_s)

    def drafted(
        self,
        drafted: int,
        accepted: int,
        texts: list[str],
        t: float,
        t_verify_s: float | None,
        inferred: bool,
    ) -> Round:
        """A drafted round: the first `accepted` texts accepted, then one corrected or bonus token.

        Counts a server reported are checked here, where every dialect builds its rounds.
        """
        if not 0 < drafted <= MAX_ROUND_DRAFTS:
            raise Invalid(Phrase("backenderr.dialect.drafted", drafted=drafted, most=MAX_ROUND_DRAFTS))
        if not 0 <= accepted <= drafted:
            raise Invalid(Phrase("backenderr.dialect.accepted", accepted=accepted, drafted=drafted))
        tokens = [
            TokenEvent(None, text, TokenStatus.ACCEPTED, position=k, inferred=inferred)
            for k, text in enumerate(texts[:accepted])
        ]
        if len(texts) > accepted:
            status = TokenStatus.BONUS if accepted >= drafted else TokenStatus.CORRECTED
            tokens.append(TokenEvent(None, texts[accepted], status, position=accepted, inferred=inferred))
        return self._make(drafted, tuple(tokens), t, t_verify_s)

    def _make(
        self, drafted: int, tokens: tuple[TokenEvent, ...], t: float, t_verify_s: float | None
    ) -> Round:
        rnd = Round(self.index, drafted, tokens, None, t_verify_s, t)
        self.index += 1
        return rnd


class GroupedChunks:
    """vLLM / SGLang reading: one stream chunk = one verify step = accepted + 1 tokens (inferred).

    The first token comes from the prompt's forward pass, so it is a plain round. Chunks
    larger than γ + 1 are steps merged while the client lagged; they are split into
    steps of γ + 1. With speculation off every token is a plain round.
    """

    def __init__(self, gamma: int | None, speculating: bool) -> None:
        self.gamma = gamma
        self.speculating = speculating
        self.maker = RoundMaker()
        self.texts: list[str] = []
        self.sizes: list[int] = []  # tokens per chunk, as streamed
        self.accepted_per_step: list[int] = []
        self._carry = ""  # text that came without a token: it starts the next one

    def late_text(self, text: str) -> None:
        """Text in a chunk that added no token (a detokenizer releasing held bytes)."""
        self._carry += text

    def flush(self) -> None:
        """At the end of the stream: text still carried ends the last token."""
        if self._carry and self.texts:
            self.texts[-1] += self._carry
        self._carry = ""

    def add(self, texts: list[str], t: float) -> list[Round]:
        """Rounds for one chunk carrying these per-token texts."""
        if self._carry and texts:
            texts = [self._carry + texts[0], *texts[1:]]
            self._carry = ""
        first = not self.texts
        self.texts.extend(texts)
        if texts:
            self.sizes.append(len(texts))
        out: list[Round] = []
        if texts and first:
            out.append(self.maker.plain(texts[0], t))
            texts = texts[1:]
        if not self.speculating:
            return out + [self.maker.plain(text, t, inferred=True) for text in texts]
        if texts and self.gamma is None:
            self.gamma = min(MAX_ROUND_DRAFTS, max(1, len(texts) - 1))
        step = (self.gamma or 1) + 1
        while texts:
            group, texts = texts[:step], texts[step:]
            drafted = min(MAX_ROUND_DRAFTS, max(self.gamma or 1, len(group) - 1))
            self.accepted_per_step.append(len(group) - 1)
            out.append(self.maker.drafted(drafted, len(group) - 1, group, t, None, inferred=True))
        return out
