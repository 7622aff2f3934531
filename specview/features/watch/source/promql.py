"""The PromQL `specview watch --prometheus` sends: which series it reads, and the user's --match.

The series names come from the server kinds (one list: each kind's `metrics_prefix` gives its
`<prefix>:spec_decode_*` counters, `tokens_counter` and `active_gauge` its generated tokens and
requests running, `watch_gauges` the gauges shown as they are, such as SGLang's accept length).
A kind is recognised in Prometheus by the series of its own that an instance has.

One instant query reads every instance's latest values: counters and the running gauge summed
over label sets except `position` (vLLM repeats each series per engine, as `metrics.py` sums a
scrape), the other gauges averaged, `up` and the time of the instance's last scrape
(`timestamp(up)`). Each part is tagged with a `specview_part` label: `or` matches label sets
without the metric name, so untagged parts would hide each other.

`--match` is a PromQL label selector (`{job="vllm",instance=~"gpu-.*"}`, braces optional). It is
parsed here, matcher by matcher, and only a well-formed one is put into the query: a value can
never close the selector or add an expression of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from specview.backends.remote.metrics import spec_counter_names
from specview.backends.remote.registry import server_kinds
from specview.kernel.errors import CliError

PART = "specview_part"  # the label tagging each part of the query
COUNT, GAUGE, UP, SCRAPED = "count", "gauge", "up", "scraped"
MAX_SELECTOR = 2000  # characters of --match
MAX_MATCHERS = 32

_NAME = r"[a-zA-Z_][a-zA-Z0-9_]*"
# a double-quoted PromQL string: no raw controls or newlines, only the escapes PromQL knows
_STRING = r'"(?:[^"\\\x00-\x1f\x7f]|\\[\\"\'abfnrtv])*"'
_MATCHER = re.compile(rf"\s*({_NAME})\s*(=~|!~|!=|=)\s*({_STRING})\s*")


@dataclass(frozen=True, slots=True)
class EngineSeries:
    """The series of one server kind that Prometheus may hold."""

    engine: str  # the kind's id
    drafts: str | None
    draft_tokens: str | None
    accepted: str | None
    per_position: str | None
    tokens: str | None
    active: str | None
    gauges: tuple[str, ...]
    cadence: str | None = None  # when its counters move (ServerKind.counters_update)
    verify: str | None = None  # verify steps counted when requests end (ServerKind.verify_counter)
    requests: str | None = None  # requests finished (ServerKind.requests_counter)
    width: str | None = None  # the width an accept-rate gauge divides by (ServerKind.width_gauge)
    diffusion: str | None = None  # a diffusion LM's counter (ServerKind.diffusion_counter)
    summed: tuple[str, ...] = field(init=False)  # the counters and the running gauge (summed over label sets)
    averaged: tuple[str, ...] = field(init=False)  # the gauges (averaged over label sets)
    expected: tuple[str, ...] = field(init=False)  # every series an instance of this engine should have

    def __post_init__(self) -> None:  # computed once: every poll asks for them per instance
        names = (self.drafts, self.draft_tokens, self.accepted, self.per_position, self.tokens, self.active)
        required = tuple(n for n in names if n)
        optional = tuple(n for n in (self.verify, self.requests, self.diffusion) if n)
        object.__setattr__(self, "summed", required + optional)
        object.__setattr__(self, "averaged", self.gauges + ((self.width,) if self.width else ()))
        object.__setattr__(self, "expected", required + self.gauges)  # older builds lack the others


@cache
def engine_series() -> tuple[EngineSeries, ...]:
    """The kinds that publish series, in detection order."""
    found = []
    for kind in server_kinds():
        spec: tuple[str | None, ...] = spec_counter_names(kind.metrics_prefix) if kind.metrics_prefix else (None,) * 4
        drafts, draft_tokens, accepted, per_position = spec
        series = EngineSeries(kind.id, drafts, draft_tokens, accepted, per_position, kind.tokens_counter,
                              kind.active_gauge, kind.watch_gauges, kind.counters_update, kind.verify_counter,
                              kind.requests_counter, kind.width_gauge, kind.diffusion_counter)
        if series.expected:
            found.append(series)
    return tuple(found)


def engine_of(names: set[str]) -> EngineSeries | None:
    """The kind with the most of its series among `names` (None: none of any kind)."""
    scored = [(len(names.intersection(s.expected)), s) for s in engine_series()]
    best = max(scored, key=lambda item: item[0], default=(0, None))
    return best[1] if best[0] > 0 else None


def is_diffusion(names: set[str], series: EngineSeries | None) -> bool:
    """A diffusion LM: its kind's diffusion counter, and no draft counters."""
    return series is not None and series.diffusion in names and series.draft_tokens not in names


def match_selector(text: str | None) -> str:
    """The matchers of `--match` as PromQL (`job="a",instance=~"b"`), "" for none; CliError
    naming what is wrong with one that is not a label selector."""
    if text is None or not text.strip():
        return ""
    if len(text) > MAX_SELECTOR:
        raise CliError("watcherr.match.long", n=len(text), most=MAX_SELECTOR)
    body = text.strip()
    if body.startswith("{"):
        if not body.endswith("}"):
            raise CliError("watcherr.match.unclosed")
        body = body[1:-1]
    matchers: list[str] = []
    at = 0
    while body[at:].strip():
        found = _MATCHER.match(body, at)
        if found is None:
            raise CliError("watcherr.match.not_selector", at=at + 1, near=_near(body, at))
        name, op, value = found.groups()
        if name == "__name__":
            raise CliError("watcherr.match.name")
        matchers.append(f"{name}{op}{value}")
        at = found.end()
        if at < len(body):
            if body[at] != ",":
                raise CliError("watcherr.match.comma", at=at + 1, near=_near(body, at))
            at += 1
        if len(matchers) > MAX_MATCHERS:
            raise CliError("watcherr.match.many", most=MAX_MATCHERS)
    return ",".join(matchers)


def _near(body: str, at: int) -> str:
    from specview.boundary.text import shown

    return shown(body[at:at + 20], 40)


def _names(names: tuple[str, ...]) -> str:
    """A regex matching exactly `names` (series names hold only [a-zA-Z0-9_:], nothing to escape)."""
    return "|".join(sorted(set(names)))


def _tagged(expr: str, part: str) -> str:
    return f'label_replace({expr}, "{PART}", "{part}", "", "")'


def _selector(names: tuple[str, ...], matchers: str) -> str:
    return "{" + f'__name__=~"{_names(names)}"' + (f",{matchers}" if matchers else "") + "}"


def values_query(matchers: str) -> str:
    """Every instance's counters and running gauge (summed) and other gauges (averaged)."""
    series = engine_series()
    summed = tuple(n for s in series for n in s.summed)
    gauges = tuple(n for s in series for n in s.averaged)
    parts = [_tagged(f"sum by (__name__, instance, job, position) ({_selector(summed, matchers)})", COUNT)]
    if gauges:
        parts.append(_tagged(f"avg by (__name__, instance, job) ({_selector(gauges, matchers)})", GAUGE))
    return " or ".join(parts)


def now_query(matchers: str) -> str:
    """`values_query`, plus each instance's `up` and the time of its last scrape."""
    up = "up{" + matchers + "}" if matchers else "up"
    return " or ".join((values_query(matchers), _tagged(f"max by (instance, job) ({up})", UP),
                        _tagged(f"max by (instance, job) (timestamp({up}))", SCRAPED)))
