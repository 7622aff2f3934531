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

from specview.features.doctor.finding import LOW, MEDIUM, OK, WARN, DoctorFinding, Evidence, told
from specview.features.doctor.probe import ProbeResult
from specview.kernel.request_spread import MIN_REQUESTS, RequestCounts, RequestSpread
from specview.report.request_spread import Named, chart, spread_json


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
                Evidence("pooled_acceptance_rate", pooled, told("pooled")),
                Evidence("lowest", min(rates), told("rate")),
                Evidence("highest", max(rates), told("rate"))]
    outliers = spread.outliers()
    for o in outliers:
        said = told("outlier", accepted=o.request.accepted, drafted=o.request.drafted,
                    rate=f"{o.request.accepted / o.request.drafted:.2f}", others=f"{o.expected:.2f}",
                    p=f"{o.p_value:.1e}", reason=told(f"reason.{o.reason}"))
        evidence.append(Evidence(f"request {o.request.id}", said, told("rule", where=where)))
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
    """`per_request` of doctor --json: report/request_spread.py's object, with where the counts
    came from, how many probes were sent and failed, and whose ids these are."""
    return {**spread_json(spread_of(probes)), "source": sources(probes), "requests": len(probes),
            "failed": sum(p.error is not None for p in probes), "ids": "probes" if probes else "unavailable"}
