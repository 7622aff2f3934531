"""Speculative-decoding counters and gauges from a server's Prometheus `/metrics` text.

llama-server and vLLM publish the same counter schema (llama.cpp PR #26389 copied vLLM's):
`<prefix>:spec_decode_num_drafts_total`, `…num_draft_tokens_total`, `…num_accepted_tokens_total`
and `…num_accepted_tokens_per_pos_total{position="k"}`. vLLM repeats each series per engine
(label `engine`), so values are summed over every label set except `position`. SGLang
publishes gauges instead (`sglang:spec_accept_length`, `sglang:spec_accept_rate`). The text
is parsed with prometheus-client's parser; `_created` timestamps are ignored.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from specview.core.bounds import MAX_COUNTER, MAX_POSITION, Invalid
from specview.core.errors import SpecviewError
from specview.core.text import sanitize, shown

_COUNTERS = ("num_drafts", "num_draft_tokens", "num_accepted_tokens")
_PER_POS = "num_accepted_tokens_per_pos"


@dataclass(frozen=True, slots=True)
class DraftCounters:
    """Cumulative speculative counters (or a difference of two scrapes)."""

    drafts: int
    draft_tokens: int
    accepted: int
    per_position: tuple[int, ...]

    def minus(self, earlier: DraftCounters) -> DraftCounters:
        """The counts between `earlier` and this scrape."""
        width = max(len(self.per_position), len(earlier.per_position))
        mine = self.per_position + (0,) * (width - len(self.per_position))
        theirs = earlier.per_position + (0,) * (width - len(earlier.per_position))
        return DraftCounters(
            drafts=self.drafts - earlier.drafts,
            draft_tokens=self.draft_tokens - earlier.draft_tokens,
            accepted=self.accepted - earlier.accepted,
            per_position=tuple(a - b for a, b in zip(mine, theirs, strict=True)),
        )


@lru_cache(maxsize=1)
def _samples(text: str) -> tuple[tuple[str, dict[str, str], float], ...]:
    """Every sample of the text, or none when prometheus-client cannot parse it. Parsed once per
    text: a poll reads counters, sums and gauges from the same scrape (a vLLM /metrics carries
    large histograms, and the parser is pure Python). Callers only read the labels."""
    from prometheus_client.parser import text_string_to_metric_families

    try:
        return tuple(
            (s.name, dict(s.labels), float(s.value))
            for family in text_string_to_metric_families(text)
            for s in family.samples
        )
    except Exception:  # noqa: BLE001 - any text a server sends: unreadable means no metrics
        return ()


def _count(name: str, labels: dict[str, str], value: float) -> float:
    """A counter's value: finite and within 0..2^53, else Invalid naming the series."""
    if not math.isfinite(value) or not 0 <= value <= MAX_COUNTER:
        series = name + ("{" + ",".join(f"{k}={v!r}" for k, v in sorted(labels.items())) + "}" if labels else "")
        shown_series = sanitize(series, 160, one_line=True)
        raise Invalid(f"/metrics {shown_series} is {value}, expected a count in 0..{MAX_COUNTER}")
    return value


def _position(name: str, label: str) -> int:
    """A `position` label: a whole number in 0..MAX_POSITION (never a size to allocate)."""
    try:
        pos = int(label)
    except ValueError:
        raise Invalid(f"/metrics {name} has position {shown(label)}, not a whole number") from None
    if not 0 <= pos <= MAX_POSITION:
        raise Invalid(f"/metrics {name} has position {shown(label)}, expected 0..{MAX_POSITION}")
    return pos


def parse_draft_counters(text: str, prefix: str) -> DraftCounters | None:
    """The `<prefix>:spec_decode_*` counters in `text`, or None when the server has none.

    A value that is not a finite count, or a `position` beyond MAX_POSITION, is Invalid.
    """
    totals = dict.fromkeys(_COUNTERS, 0.0)
    per_pos: dict[int, float] = {}
    seen = False
    for name, labels, value in _samples(text):
        if not name.startswith(f"{prefix}:spec_decode_"):
            continue
        base = name[len(prefix) + len(":spec_decode_"):]
        base = base.removesuffix("_total")
        if base == _PER_POS:
            pos = _position(name, labels.get("position", ""))
            per_pos[pos] = per_pos.get(pos, 0.0) + _count(name, labels, value)
            seen = True
        elif base in totals:
            totals[base] += _count(name, labels, value)
            seen = True
    if not seen:
        return None
    width = max(per_pos) + 1 if per_pos else 0
    return DraftCounters(
        drafts=round(totals["num_drafts"]),
        draft_tokens=round(totals["num_draft_tokens"]),
        accepted=round(totals["num_accepted_tokens"]),
        per_position=tuple(round(per_pos.get(k, 0.0)) for k in range(width)),
    )


def parse_sums(text: str, names: tuple[str, ...]) -> dict[str, float]:
    """The sum over label sets of each count in `names` that `text` contains (counters such as
    generated tokens, gauges such as requests running; a `_total` suffix is optional:
    prometheus-client names counter samples with it). A value that is not a count is Invalid."""
    wanted = {name.removesuffix("_total"): name for name in names}
    sums: dict[str, float] = {}
    for name, labels, value in _samples(text):
        key = wanted.get(name.removesuffix("_total"))
        if key is not None:
            sums[key] = sums.get(key, 0.0) + _count(name, labels, value)
    return sums


def parse_gauges(text: str, names: tuple[str, ...]) -> dict[str, float]:
    """The mean over label sets of each gauge in `names` that `text` contains."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for name, _labels, value in _samples(text):
        if name in names and math.isfinite(value):
            sums[name] = sums.get(name, 0.0) + value
            counts[name] = counts.get(name, 0) + 1
    return {name: sums[name] / counts[name] for name in sums}


class MetricsPoller:
    """Scrape `/metrics` on a small thread every `interval` s while a stream runs.

    `fetch` returns the text or None; `latest` holds the last text that arrived. The thread
    ends on `stop()` or after `max_polls` scrapes, so it never outlives its stream by much, or
    at the first scrape `fetch` refuses with an error (`error`: the stream's reader raises it).
    """

    def __init__(self, fetch: Callable[[], str | None], interval: float = 1.0, max_polls: int = 3600) -> None:
        self._fetch = fetch
        self._interval = interval
        self._max_polls = max_polls
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.latest: str | None = None
        self.error: SpecviewError | None = None
        self.polls = 0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="specview-metrics", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while self.polls < self._max_polls and not self._stop.wait(self._interval):
            self.polls += 1
            try:
                text = self._fetch()
            except SpecviewError as exc:
                self.error = exc
                return
            if text is not None:
                self.latest = text

    def stop(self, wait: bool = True) -> None:
        """End the polling; `wait` joins the thread (briefly: a scrape in flight may hang)."""
        self._stop.set()
        if wait and self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(0.5)
