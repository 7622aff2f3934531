"""Doctor's per-request spread: each request's acceptance, as a histogram, and the requests far
from the others (kernel/request_spread.py: the binomial rule, said in docs/definitions.md).

Per-request counts come only with the answer to the client that sent the request: llama-server's
`timings.draft_n` / `draft_n_accepted`, vLLM's `metrics.speculative_decoding` (when the server
runs with `--per-request-spec-decode-metrics`), SGLang's `sglext.spec_tokens_details` (asked with
`return_spec_tokens_details`). A watcher gets none of them: llama-server's /slots carries no draft
counts, and vLLM's /metrics has only server-wide counters (its `vllm:request_*` histograms are
lengths and times, none of acceptance), so ids of other clients' requests are unavailable. The
requests here are doctor's own probes (`--probe N`); a probe whose counts failed a check is not
in the spread (probe.py says why, in one line).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specview.features.doctor.finding import LOW, MEDIUM, OK, WARN, DoctorFinding, Evidence
from specview.features.doctor.probe import ProbeResult
from specview.kernel.request_spread import (
    BINS,
    FENCE,
    LEVEL,
    MIN_GAP,
    MIN_REQUESTS,
    Outlier,
    RequestCounts,
    RequestSpread,
)
from specview.texts.catalog import Phrase, fill

BAR_CELLS = 20  # cells of the longest bar; the scale line says how many requests that is
MAX_NAMED = 5  # outliers named in the finding's words (the evidence and --json have them all)
RULE = "binomial+tukey"


def probe_id(index: int, probe: ProbeResult) -> str:
    """The server's id of the answer where it gave one, else the probe's number."""
    return probe.request_id or f"probe-{index + 1}"


def spread_of(probes: Sequence[ProbeResult]) -> RequestSpread:
    """The probes that came back with draft counts (a failed or lying probe has none)."""
    spread = RequestSpread()
    for index, probe in enumerate(probes):
        if probe.error is None and probe.drafted is not None and probe.accepted is not None:
            spread.add(RequestCounts(probe_id(index, probe), probe.accepted, probe.drafted))
    return spread


def sources(probes: Sequence[ProbeResult]) -> str:
    """The fields the counts came from, joined."""
    found = dict.fromkeys(p.counts_source for p in probes if p.counts_source and p.drafted is not None)
    return " + ".join(found) or "—"


def chart(spread: RequestSpread) -> tuple[Phrase | str, ...]:
    """The histogram as text: a line stating the scale, then one bar per bin of acceptance."""
    bins = spread.histogram()
    top = max(bins) or 1
    lines: list[Phrase | str] = [Phrase("spread.chart_head", n=spread.count, cells=BAR_CELLS, top=top)]
    for k, count in enumerate(bins):
        cells = round(count * BAR_CELLS / top)
        bar = ("█" * cells).ljust(BAR_CELLS)
        lines.append(f"{k / BINS:.1f}–{(k + 1) / BINS:.1f} ▕{bar}▏ {count}")
    return tuple(lines)


class Named:
    """The outliers in the finding's words, put in a language where the finding is shown
    (the catalog renders a field with `in_language`)."""

    def __init__(self, outliers: Sequence[Outlier]) -> None:
        self.outliers = tuple(outliers)

    def in_language(self, lang: str) -> str:
        shown = [fill("spread.named", lang, id=o.request.id, accepted=o.request.accepted,
                      drafted=o.request.drafted, reason=fill(f"spread.reason.{o.reason}", lang))
                 for o in self.outliers[:MAX_NAMED]]
        if len(self.outliers) > MAX_NAMED:
            shown.append(fill("spread.more", lang, n=len(self.outliers) - MAX_NAMED))
        return fill("spread.joiner", lang).join(shown)


def findings(probes: Sequence[ProbeResult]) -> list[DoctorFinding]:
    """One finding about the spread of the probes' acceptance (none when no probe came back: the
    failed ones are probe_failed's, one line naming what failed)."""
    if all(p.error is not None for p in probes):
        return []
    spread = spread_of(probes)
    where = sources(probes)
    if spread.count == 0:
        return [DoctorFinding("spread_none", OK, LOW, "spread_no_counts", {"n": len(probes)},
                              (Evidence("requests_with_drafts", 0, where),))]
    pooled = spread.pooled()
    rates = [r.accepted / r.drafted for r in spread.kept]
    evidence = [Evidence("requests_with_drafts", spread.count, where),
                Evidence("pooled_acceptance_rate", pooled, "Σ accepted ÷ Σ drafted"),
                Evidence("lowest", min(rates), "accepted ÷ drafted"),
                Evidence("highest", max(rates), "accepted ÷ drafted")]
    outliers = spread.outliers()
    for o in outliers:
        evidence.append(Evidence(f"request {o.request.id}", f"{o.request.accepted}/{o.request.drafted} = "
                                 f"{o.request.accepted / o.request.drafted:.2f}, others {o.expected:.2f}, "
                                 f"p {o.p_value:.1e}, {o.reason}", f"{where}, {RULE}"))
    reason = "spread_few" if spread.count < MIN_REQUESTS else "spread_rule"
    fields: dict[str, object] = {"n": spread.count, "low": f"{min(rates):.2f}", "high": f"{max(rates):.2f}",
                                 "pooled": f"{pooled or 0.0:.2f}"}
    made = chart(spread)
    if outliers:
        fields |= {"k": len(outliers), "named": Named(outliers)}
        return [DoctorFinding("spread_outliers", WARN, MEDIUM, reason, fields, tuple(evidence), chart=made)]
    return [DoctorFinding("spread", OK, MEDIUM if spread.count >= MIN_REQUESTS else LOW, reason, fields,
                          tuple(evidence), chart=made)]


def as_json(probes: Sequence[ProbeResult]) -> dict[str, Any]:
    """`per_request` of doctor --json: the histogram, the pooled rate, the outliers with their ids."""
    spread = spread_of(probes)
    bins = spread.histogram()
    pooled = spread.pooled()
    return {
        "basis": "accepted ÷ drafted",
        "source": sources(probes),
        "requests": len(probes),
        "count": spread.count,
        "no_drafts": spread.no_drafts,
        "failed": sum(p.error is not None for p in probes),
        "ids": "probes" if probes else "unavailable",
        "pooled_acceptance_rate": None if pooled is None else round(pooled, 4),
        "bins": [{"low": k / BINS, "high": (k + 1) / BINS, "count": n} for k, n in enumerate(bins)],
        "rule": {"name": RULE, "level": LEVEL, "fence": FENCE, "min_gap": MIN_GAP, "min_requests": MIN_REQUESTS},
        "outliers": [{"id": o.request.id, "accepted": o.request.accepted, "drafted": o.request.drafted,
                      "acceptance_rate": round(o.request.accepted / o.request.drafted, 4),
                      "others_rate": round(o.expected, 4), "p_value": o.p_value, "reason": o.reason}
                     for o in spread.outliers()],
    }
