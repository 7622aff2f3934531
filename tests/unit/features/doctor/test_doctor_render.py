"""doctor's output: the JSON schema's keys, and the server's words made safe to print."""

from __future__ import annotations

from specview.features.doctor.finding import HIGH, WARN, DoctorFinding, Evidence
from specview.features.doctor.observe import Observation
from specview.features.doctor.render import SCHEMA, as_json, lines

HOSTILE = "MTP\x1b]52;c;cGF3bmVk\x07\x1b[2J (draft-mtp)"


def report() -> list[tuple[Observation, list[DoctorFinding]]]:
    obs = Observation("http://h:1", "llama-server", HOSTILE, 3, True, 10.0, samples=10)
    finding = DoctorFinding("on", "ok", HIGH, "drafts_seen", {"method": HOSTILE, "gamma": 3},
                            (Evidence("method", HOSTILE, "/props"), Evidence("alpha", 0.51234, "llamacpp:x")))
    off = DoctorFinding("off", WARN, HIGH, "no_counters", {"engine": "llama-server"}, (), "--spec-type ngram-simple")
    return [(obs, [finding, off])]


def test_the_json_has_the_stable_schema() -> None:
    out = as_json(report(), "en")
    assert out["schema"] == SCHEMA and out["lang"] == "en"
    (server,) = out["servers"]
    assert set(server) == {"url", "engine", "method", "window_s", "samples", "probes", "via", "findings", "per_request"}
    assert server["via"] is None  # read directly; "prometheus" through Prometheus
    on, off = server["findings"]
    assert set(on) == {"id", "severity", "text", "confidence", "evidence", "flag"}
    assert set(on["confidence"]) == {"level", "reason", "text"}
    assert on["evidence"][1] == {"name": "alpha", "value": 0.5123, "source": "llamacpp:x"}
    assert off["flag"] == "--spec-type ngram-simple" and on["flag"] is None


def test_no_escape_sequence_of_the_server_reaches_the_output() -> None:
    text = "\n".join(lines(report(), "en")) + str(as_json(report(), "zh"))
    assert "\x1b" not in text and "\x07" not in text
    assert "change: --spec-type ngram-simple" in text


def test_the_text_is_in_the_asked_language() -> None:
    zh = "\n".join(lines(report(), "zh"))
    assert "推测解码已开启" in zh and "置信度高" in zh and "修改：--spec-type ngram-simple" in zh
