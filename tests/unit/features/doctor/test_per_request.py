"""doctor's per-request spread: the finding, its histogram with the scale said, and --json's per_request."""

from __future__ import annotations

from specview.features.doctor.per_request import as_json, findings
from specview.features.doctor.probe import ProbeResult
from specview.features.doctor.render import detail_lines, said_line
from specview.report.request_spread import BAR_CELLS
from specview.texts.catalog import Phrase


def probe(rid: str, accepted: int, drafted: int) -> ProbeResult:
    return ProbeResult(48, 1000.0, drafted, accepted, 1.0, request_id=rid, counts_source="timings.draft_n")


MIX = [probe(f"cmpl-{i}", 10 + i % 2, 40) for i in range(6)] + [probe("cmpl-loop", 40, 40)]


def test_a_request_far_above_the_others_is_named_with_its_id() -> None:
    (found,) = findings(MIX)
    assert found.id == "spread_outliers" and found.severity == "warn"
    said = said_line(found, "en")
    assert "cmpl-loop (40 of 40, far above)" in said and "1 of 7" in said
    zh = said_line(found, "zh")
    assert "远高于其余" in zh and "far above" not in zh


def test_the_histogram_states_its_scale() -> None:
    (found,) = findings(MIX)
    lines = detail_lines(found, "en")
    (head,) = [line for line in lines if line.startswith("acceptance per request")]
    assert f"a bar of {BAR_CELLS} cells is 6 requests" in head
    bars = [line for line in lines if "▕" in line]
    assert len(bars) == 10 and bars[2].endswith(" 6") and bars[-1].endswith(" 1")
    assert bars[2].count("█") == BAR_CELLS and 2 <= bars[-1].count("█") <= 4


def test_the_json_has_bins_and_outliers_with_ids() -> None:
    out = as_json(MIX)
    assert out["count"] == 7 and out["ids"] == "probes" and out["basis"] == "accepted ÷ drafted"
    assert sum(b["count"] for b in out["bins"]) == 7 and len(out["bins"]) == 10
    (loop,) = out["outliers"]
    assert loop["id"] == "cmpl-loop" and loop["reason"] == "high" and loop["acceptance_rate"] == 1.0
    assert {"accepted", "drafted", "others_rate", "p_value"} <= set(loop)


def test_no_probe_no_finding_and_failed_probes_are_left_to_probe_failed() -> None:
    assert findings([]) == []
    lying = ProbeResult(error=Phrase("request_spread.lies.over_drafted", where="timings.draft_n", accepted=9,
                                     drafted=3))
    assert findings([lying]) == []
    assert as_json([lying])["failed"] == 1 and as_json([lying])["count"] == 0
    assert as_json([])["ids"] == "unavailable"


def test_probes_without_draft_counts_say_so() -> None:
    (found,) = findings([ProbeResult(tokens=48, wall_s=1.0)])
    assert found.id == "spread_none"


def test_a_few_requests_are_a_histogram_without_verdict() -> None:
    (found,) = findings(MIX[:3])
    assert found.id == "spread" and found.reason == "spread_few"
