"""Speculative-decoding counters and gauges from a server's Prometheus `/metrics` text.

llama-server and vLLM publish the same counter schema (llama.cpp PR #26389 copied vLLM's):
`<prefix>:spec_decode_num_drafts_total`, `…num_draft_tokens_total`, `…num_accepted_tokens_total`
and `…num_accepted_tokens_per_pos_total{position="k"}`. vLLM repeats each series per engine
(label `engine`), so values are summed over every label set except `position`. SGLang
publishes gauges instead (`sglang:spec_accept_length`, `sglang:spec_accept_rate`). The text
is parsed with prometheus-client's parser; `_created` timestamps are ignored.

The parser is pure Python: about 1 µs a character, 4 µs in escaped labels, and quadratic in
a long label's escapes (a 1 MB label took 8–30 s). So it only ever sees the lines of the
families asked for, at most MAX_READ_CHARS of them: those lines are found with `str.find`
(linear, in C), every other line (histograms, comments) is never looked at, and a line of a
family read that is longer than MAX_LINE_BYTES, or beyond MAX_READ_CHARS, is skipped and
counted (`Samples.notes`: what `watch` and the side panel say). A poll costs at most ~0.3 s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from specview.boundary.bounds import MAX_COUNTER, MAX_POSITION, Invalid
from specview.boundary.text import sanitize, shown
from specview.kernel.backend import Note
from specview.kernel.errors import SpecviewError
from specview.kernel.poller import Poller
from specview.texts.catalog import Phrase

_COUNTERS = ("num_drafts", "num_draft_tokens", "num_accepted_tokens")
_PER_POS = "num_accepted_tokens_per_pos"
# A sample line of a family read, labels included (real ones are under 300 bytes; vLLM's
# `model_name` label may hold a path).
MAX_LINE_BYTES = 2048
# Characters of those lines parsed per scrape: a server publishes 3 + γ lines of ~150 bytes per
# engine, so this holds 40 engines at γ = 8; the parser takes 0.07 s on it, 0.3 s all escapes.
MAX_READ_CHARS = 64 * 1024

Row = tuple[str, dict[str, str], float]


def spec_family(prefix: str) -> str:
    """The name prefix of a server family's speculative counters."""
    return f"{prefix}:spec_decode_"


def spec_counter_names(prefix: str) -> tuple[str, str, str, str]:
    """The full series names (as Prometheus stores them) of a family's drafts, drafted tokens,
    accepted tokens and accepted-per-position counters."""
    family = spec_family(prefix)
    drafts, draft_tokens, accepted = (f"{family}{base}_total" for base in _COUNTERS)
    return drafts, draft_tokens, accepted, f"{family}{_PER_POS}_total"


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


@dataclass(frozen=True, slots=True)
class Samples:
    """The samples of the families asked for, and how many of their lines were not parsed."""

    rows: tuple[Row, ...] = ()
    long_lines: int = 0  # over MAX_LINE_BYTES
    extra_lines: int = 0  # beyond the first MAX_READ_CHARS

    def notes(self) -> tuple[Note, ...]:
        """What to tell the user about the lines skipped (catalog `note.<id>`; values are counts)."""
        notes = []
        if self.long_lines:
            notes.append(Note("metrics_long_lines", {"lines": str(self.long_lines), "bytes": str(MAX_LINE_BYTES)}))
        if self.extra_lines:
            notes.append(Note("metrics_many_lines", {"lines": str(self.extra_lines), "chars": str(MAX_READ_CHARS)}))
        return tuple(notes)


def _widest(families: Iterable[str]) -> list[str]:
    """The families without those another one already covers (a line is found once)."""
    kept: list[str] = []
    for family in sorted(set(families)):
        if family and not any(family.startswith(k) for k in kept):
            kept.append(family)
    return kept


def _too_long(text: str, start: int, end: int) -> bool:
    if end - start > MAX_LINE_BYTES:  # each character is at least one byte
        return True
    return (end - start) * 4 > MAX_LINE_BYTES and len(text[start:end].encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES


def _lines(text: str, families: Iterable[str]) -> tuple[list[str], int, int]:
    """The sample lines (in the text's order) whose metric name starts with one of `families`,
    and the counts of those families' lines skipped: longer than MAX_LINE_BYTES, and beyond
    MAX_READ_CHARS. Each step jumps to the next occurrence of a family, then past its line, so
    this is linear in the text whatever it holds."""
    spans: list[tuple[int, int]] = []
    long_lines = extra = 0
    budget = MAX_READ_CHARS
    for family in _widest(families):
        if budget < 0:  # spent: every line of this family is left unread
            extra += text.startswith(family) + text.count("\n" + family)
            continue
        at = 0
        while (at := text.find(family, at)) >= 0:
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            if at == 0 or text[at - 1] == "\n":  # the metric's name, not text inside a line
                if _too_long(text, at, end):
                    long_lines += 1
                elif end - at < budget:
                    spans.append((at, end))
                    budget -= end - at + 1
                else:  # spent: this line and the later ones of this family are left unread
                    budget = -1
                    extra += 1 + text.count("\n" + family, end)
                    break
            at = end
    spans.sort()
    return [text[a:b] for a, b in spans], long_lines, extra


def read_samples(text: str, families: Iterable[str]) -> Samples:
    """The samples of the families (metric name prefixes) in `text`; none when prometheus-client
    cannot parse their lines. Callers only read the labels."""
    from prometheus_client.parser import text_string_to_metric_families

    lines, long_lines, extra = _lines(text, families)
    try:
        rows = tuple(
            (s.name, dict(s.labels), float(s.value))
            for family in text_string_to_metric_families("\n".join(lines) + "\n")
            for s in family.samples
        )
    except Exception:  # noqa: BLE001 - any text a server sends: unreadable means no metrics
        rows = ()
    return Samples(rows, long_lines, extra)


def _count(name: str, labels: dict[str, str], value: float) -> float:
    """A counter's value: finite and within 0..2^53, else Invalid naming the series."""
    if not math.isfinite(value) or not 0 <= value <= MAX_COUNTER:
        series = name + ("{" + ",".join(f"{k}={v!r}" for k, v in sorted(labels.items())) + "}" if labels else "")
        shown_series = sanitize(series, 160, one_line=True)
        raise Invalid(Phrase("backenderr.metrics.not_count", series=shown_series, value=value, most=MAX_COUNTER))
    return value


def _position(name: str, label: str) -> int:
    """A `position` label: a whole number in 0..MAX_POSITION (never a size to allocate)."""
    try:
        pos = int(label)
    except ValueError:
        raise Invalid(Phrase("backenderr.metrics.position_not_whole", name=name, label=shown(label))) from None
    if not 0 <= pos <= MAX_POSITION:
        raise Invalid(Phrase("backenderr.metrics.position_range", name=name, label=shown(label), most=MAX_POSITION))
    return pos


def draft_counters(samples: Samples, prefix: str) -> DraftCounters | None:
    """The `<prefix>:spec_decode_*` counters among `samples`, or None when the server has none.

    A value that is not a finite count, or a `position` beyond MAX_POSITION, is Invalid.
    """
    family = spec_family(prefix)
    totals = dict.fromkeys(_COUNTERS, 0.0)
    per_pos: dict[int, float] = {}
    seen = False
    for name, labels, value in samples.rows:
        if not name.startswith(family):
            continue
        base = name[len(family):].removesuffix("_total")
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


def count_sums(samples: Samples, names: tuple[str, ...]) -> dict[str, float]:
    """The sum over label sets of each count in `names` among `samples` (counters such as
    generated tokens, gauges such as requests running; a `_total` suffix is optional:
    prometheus-client names counter samples with it). A value that is not a count is Invalid."""
    wanted = {name.removesuffix("_total"): name for name in names}
    sums: dict[str, float] = {}
    for name, labels, value in samples.rows:
        key = wanted.get(name.removesuffix("_total"))
        if key is not None:
            sums[key] = sums.get(key, 0.0) + _count(name, labels, value)
    return sums


def gauge_means(samples: Samples, names: tuple[str, ...]) -> dict[str, float]:
    """The mean over label sets of each gauge in `names` among `samples`."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for name, _labels, value in samples.rows:
        if name in names and math.isfinite(value):
            sums[name] = sums.get(name, 0.0) + value
            counts[name] = counts.get(name, 0) + 1
    return {name: sums[name] / counts[name] for name in sums}


def sum_families(names: tuple[str, ...]) -> tuple[str, ...]:
    """The families `count_sums` reads for `names` (a counter's `_total` and `_created` alike)."""
    return tuple(name.removesuffix("_total") for name in names)


def parse_draft_counters(text: str, prefix: str) -> DraftCounters | None:
    """`draft_counters` of a scrape's text."""
    return draft_counters(read_samples(text, (spec_family(prefix),)), prefix)


def parse_sums(text: str, names: tuple[str, ...]) -> dict[str, float]:
    """`count_sums` of a scrape's text."""
    return count_sums(read_samples(text, sum_families(names)), names)


def parse_gauges(text: str, names: tuple[str, ...]) -> dict[str, float]:
    """`gauge_means` of a scrape's text."""
    return gauge_means(read_samples(text, names), names)


class MetricsPoller:
    """Scrape `/metrics` on a small thread every `interval` s while a stream runs.

    `fetch` returns the text or None; `latest` holds the last text that arrived. The polling
    (kernel/poller.py) ends on `stop()` or after `max_polls` scrapes, so it never outlives its
    stream by much, or at the first scrape `fetch` refuses with an error (`error`: the stream's
    reader raises it).
    """

    def __init__(self, fetch: Callable[[], str | None], interval: float = 1.0, max_polls: int = 3600) -> None:
        self._poller: Poller[str | None] = Poller(fetch, self._took, interval, max_polls=max_polls,
                                                  first_after=interval, stop_on_error=True, name="specview-metrics")
        self.latest: str | None = None
        self.error: SpecviewError | None = None

    @property
    def polls(self) -> int:
        return self._poller.polls

    def _took(self, answer: str | SpecviewError | None) -> None:
        if isinstance(answer, SpecviewError):
            self.error = answer
        elif answer is not None:
            self.latest = answer

    def start(self) -> None:
        self._poller.start()

    def stop(self, wait: bool = True) -> None:
        """End the polling; `wait` joins the thread (briefly: a scrape in flight may hang)."""
        self._poller.stop(0.5 if wait else None)
