"""`specview doctor --probe N`: one short request of our own, and what the server says it cost.

A probe is a non-streamed /v1/completions of a prompt written here (one that repeats, so a
drafter that works has something to draft), MAX_TOKENS tokens at temperature 0, the whole of it
within its deadline (the Connection closes the socket then). llama-server answers with `timings`:
predicted_n tokens in predicted_ms, draft_n drafted and draft_n_accepted accepted. Every number is
checked through the boundary (counts in range, accepted ≤ drafted); one that fails is not used and
the probe says why in one line. vLLM's and SGLang's per-request counts are read where the answer
has them (request_counts.py), and the answer's `id` is kept: doctor's per-request spread
(per_request.py) names a request far from the others by it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from specview.backends.remote.client import Connection
from specview.backends.remote.dialect import counter
from specview.boundary.bounds import MAX_SECONDS, Invalid, optional_real
from specview.boundary.text import sanitize
from specview.features.doctor.request_counts import engine_counts, lies
from specview.kernel.errors import SpecviewError
from specview.kernel.request_spread import MAX_ID
from specview.texts.catalog import Phrase

MAX_TOKENS = 48
PROMPTS = (
    "Count on: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,",
    "Repeat after me five times: the quick brown fox jumps over the lazy dog. the quick brown fox",
    "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n\ndef mul(a, b):\n",
    "Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday, Monday, Tuesday,",
)


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """One probe: the server's own timings where it gave them, or why there are none."""

    tokens: int | None = None  # predicted_n (or usage.completion_tokens)
    decode_ms: float | None = None  # predicted_ms: the generation's time on the server
    drafted: int | None = None
    accepted: int | None = None
    wall_s: float | None = None
    error: Phrase | None = None
    request_id: str | None = None  # the answer's `id` (sanitized, at most MAX_ID characters)
    counts_source: str | None = None  # the field drafted and accepted came from

    @property
    def tokens_per_s(self) -> float | None:
        """The server's decode speed for this request (its own clock), else None."""
        if self.tokens is None or not self.decode_ms:
            return None
        return self.tokens / (self.decode_ms / 1000.0)


def probe_once(conn: Connection, k: int, deadline_s: float, model: str | None,
               engine: str | None = None) -> ProbeResult:
    """Send probe `k` and read its timings; never raises (a failure is the result's `error`)."""
    started = time.monotonic()
    try:
        if model is None:
            served = conn.served_models()
            model = next(iter(served), None)
        body: dict[str, Any] = {"prompt": PROMPTS[k % len(PROMPTS)], "max_tokens": MAX_TOKENS,
                                "temperature": 0.0, "stream": False}
        if model:
            body["model"] = model
        if engine == "sglang":  # its per-request counts come only when asked (request_counts.py)
            body["return_spec_tokens_details"] = True
        answer = conn.post_json(f"{conn.api}/completions", body, Phrase("doctor.probe.doing"), timeout=deadline_s)
        return read_answer(answer, time.monotonic() - started)
    except SpecviewError as exc:
        return ProbeResult(wall_s=time.monotonic() - started, error=exc.phrase)
    except Exception as exc:  # noqa: BLE001 - a closed client, an interrupted socket: this probe's end
        return ProbeResult(wall_s=time.monotonic() - started,
                           error=Phrase("doctor.probe.failed", why=sanitize(str(exc), 200, one_line=True)))


def read_answer(answer: Any, wall_s: float) -> ProbeResult:
    """The checked numbers of one completion answer."""
    if not isinstance(answer, dict):
        return ProbeResult(wall_s=wall_s, error=Phrase("doctor.probe.not_object"))
    timings = answer.get("timings")
    usage = answer.get("usage")
    request_id = _answer_id(answer.get("id"))
    source = None
    try:
        tokens = drafted = accepted = None
        decode_ms = None
        if isinstance(timings, dict):
            tokens = counter(timings.get("predicted_n"), "timings.predicted_n")
            decode_ms = optional_real(timings.get("predicted_ms"), "timings.predicted_ms", 0.0, MAX_SECONDS * 1000)
            drafted = counter(timings.get("draft_n"), "timings.draft_n")
            accepted = counter(timings.get("draft_n_accepted"), "timings.draft_n_accepted")
            source = "timings.draft_n" if drafted is not None else None
        if tokens is None and isinstance(usage, dict):
            tokens = counter(usage.get("completion_tokens"), "usage.completion_tokens")
        if drafted is None:
            told = engine_counts(answer)
            if told is not None:
                accepted, drafted, source = told
    except Invalid as exc:
        said = exc.args[0] if exc.args and isinstance(exc.args[0], Phrase) else sanitize(str(exc), 200, one_line=True)
        return ProbeResult(wall_s=wall_s, error=Phrase("doctor.probe.failed", why=said), request_id=request_id)
    if drafted is not None and accepted is not None:
        lie = lies(source or "timings", accepted, drafted, tokens)
        if lie is not None:
            return ProbeResult(wall_s=wall_s, error=lie, request_id=request_id)
    return ProbeResult(tokens, decode_ms, drafted, accepted, wall_s, request_id=request_id, counts_source=source)


def _answer_id(value: Any) -> str | None:
    """The answer's id, when it is a short string (sanitized: it is shown and printed)."""
    if not isinstance(value, str) or not value:
        return None
    return sanitize(value, MAX_ID, one_line=True)
