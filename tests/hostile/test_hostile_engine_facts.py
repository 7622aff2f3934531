"""Engine facts a real engine on this machine cannot show, served as fixed /metrics bodies by a
real HTTP server: llama-server's counters that land when a request ends and its gauges that each
scrape resets, SGLang's counters beside its gauges, a vLLM diffusion model, vLLM's lossy FLy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from specview.backends.factory import make_backend
from specview.backends.remote.options import RemoteOptions
from specview.backends.remote.server_kind import DIFFUSION_METHOD
from specview.cli import main
from specview.features.live.run_text import note_texts
from specview.features.watch.command import line
from specview.features.watch.model import WatchModel
from specview.features.watch.source import ServerWatch
from specview.features.watch.source.prometheus import PrometheusFleet
from specview.kernel.runspec import RunSpec
from tests.support.hostile_server import HostileServer, Scenario, hostile_server
from tests.support.prometheus import prometheus, prometheus_binary

LLAMA_PROPS = json.dumps({"build_info": "b1",
                          "default_generation_settings": {"params": {"speculative.types": "ngram-mod"}}})


def llama_metrics(drafts: int, drafted: int, accepted: int, tokens: int, gauge: float) -> str:
    """llama-server's /metrics: the `_total` counters, and the averaged gauges each scrape resets."""
    p = "llamacpp:"
    return (f"{p}prompt_tokens_total 100\n{p}tokens_predicted_total {tokens}\n"
            f"{p}spec_decode_num_drafts_total {drafts}\n{p}spec_decode_num_draft_tokens_total {drafted}\n"
            f"{p}spec_decode_num_accepted_tokens_total {accepted}\n"
            f"# TYPE {p}predicted_tokens_seconds gauge\n{p}predicted_tokens_seconds {gauge}\n"
            f"{p}prompt_tokens_seconds {gauge}\n{p}n_busy_slots_per_decode {gauge}\n"
            f"{p}requests_processing 1\n{p}requests_deferred 0\n")


def llama(metrics: str) -> Scenario:
    return Scenario(models=[{"id": "m", "owned_by": "llamacpp"}],
                    get={"/props": (200, "application/json", LLAMA_PROPS.encode()),
                         "/slots": (200, "application/json", b"[]"),
                         "/metrics": (200, "text/plain; version=0.0.4", metrics.encode())})


def serve_metrics(server: HostileServer, metrics: str) -> None:
    server.scenario.get["/metrics"] = (200, "text/plain; version=0.0.4", metrics.encode())


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def test_llama_server_rates_come_from_its_counters_and_say_when_they_move(
        server: HostileServer, capsys: pytest.CaptureFixture[str]) -> None:
    """The averaged gauges read 9999 at one scrape and 0 at the next (a scrape resets them): no
    number moves with them. The rates are the counters' deltas, said to update when a request ends."""
    server.scenario = llama(llama_metrics(10, 30, 20, 500, 9999.0))
    watch = ServerWatch(server.root)
    try:
        model = WatchModel()
        model.feed(watch.scrape())
        serve_metrics(server, llama_metrics(14, 42, 28, 540, 0.0))
        sample = model.feed(watch.scrape())
    finally:
        watch.close()
    assert sample is not None and sample.dt > 0
    assert (sample.drafts, sample.draft_tokens, sample.accepted, sample.tokens) == (4, 12, 8, 40)
    assert sample.tokens_per_s == pytest.approx(40 / sample.dt)
    assert sample.gauges == {}  # none of the averaged gauges is read
    record = sample.to_dict()
    assert record["counters_update"] == "request_end"
    assert "9999" not in json.dumps(record)
    assert main(["watch", "--url", server.root, "--count", "1", "--interval", "0.05"]) == 0
    assert "updates when a request ends" in capsys.readouterr().out
    assert main(["watch", "--url", server.root, "--count", "1", "--interval", "0.05", "--lang", "zh"]) == 0
    assert "请求结束时才更新" in capsys.readouterr().out


def vllm(metrics: str, server_info: dict[str, object] | None = None) -> Scenario:
    """A vLLM (/version, owned_by vllm) whose /metrics is `metrics`; with `server_info`, the dev
    mode's /server_info (VLLM_SERVER_DEV_MODE=1) answering it."""
    get = {"/version": (200, "application/json", b'{"version": "0.33.0"}'),
           "/metrics": (200, "text/plain; version=0.0.4", metrics.encode())}
    if server_info is not None:
        get["/server_info"] = (200, "application/json", json.dumps(server_info).encode())
    return Scenario(models=[{"id": "m", "owned_by": "vllm"}], get=get)


VLLM_BASE = "vllm:generation_tokens_total 40\nvllm:num_requests_running 1\n"
DIFFUSION = (VLLM_BASE + 'vllm:diffusion_num_denoising_steps_total{engine="0"} 12\n'
             'vllm:diffusion_num_canvas_positions_total{engine="0"} 96\n'
             'vllm:diffusion_num_committed_tokens_total{engine="0"} 40\n')
SPECULATING = (VLLM_BASE + "vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total 30\n"
               "vllm:spec_decode_num_accepted_tokens_total 20\n"
               + "".join(f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{position="{k}"}} {n}\n'
                         for k, n in enumerate((9, 7, 4))))


def test_a_vllm_diffusion_model_is_named_as_such_not_a_speculator(
        server: HostileServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.scenario = vllm(DIFFUSION)
    watch = ServerWatch(server.root)
    try:
        assert watch.kind.id == "vllm" and not watch.facts.speculating
        assert watch.facts.method is not None and "diffusion" in watch.facts.method
        assert "diffusion" in watch.describe(learn=False)
        model = WatchModel()
        model.feed(watch.scrape())
        sample = model.feed(watch.scrape())
    finally:
        watch.close()
    assert sample is not None and [n.id for n in sample.notes] == ["vllm_diffusion"]
    assert main(["watch", "--url", server.root, "--count", "1", "--interval", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "a diffusion LM, not a speculator" in out and "publishes no speculative counters" in out


@pytest.mark.parametrize(("rule", "said"), [("fly", "lossy verification"), ("synthetic", "synthetic acceptance"),
                                            ("standard", None)])
def test_vllms_verification_rule_is_flagged_where_the_server_tells_it(
        server: HostileServer, capsys: pytest.CaptureFixture[str], rule: str, said: str | None) -> None:
    """vLLM 0.33's FLy is lossy; `synthetic` accepts at set rates: both change what the numbers
    mean, in `watch --json` (with the first sample) and in a run's notes."""
    config = {"method": "ngram", "num_speculative_tokens": 3, "rejection_sample_method": rule}
    server.scenario = vllm(SPECULATING, {"vllm_config": {"speculative_config": config}, "vllm_env": {}})
    assert main(["watch", "--url", server.root, "--count", "2", "--interval", "0.05", "--json"]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    texts = [note["text"] for note in first["notes"]]
    if said is None:
        assert texts == []
    else:
        assert len(texts) == 1 and said in texts[0]
    assert second["notes"] == []  # said once
    watch = ServerWatch(server.root)
    try:
        assert watch.facts.method == "ngram" and watch.facts.speculating
        assert [n.id for n in watch.facts.notes] == ([f"vllm_{'fly_lossy' if rule == 'fly' else rule}"] if said else [])
    finally:
        watch.close()
    # a run's notes (the side panel, recordings)
    backend = make_backend(RunSpec(max_tokens=8, options=RemoteOptions(url=server.url)))
    try:
        run_notes = note_texts(backend.info.notes, "en")
    finally:
        backend.close()
    assert any(said in n for n in run_notes) if said else not any("lossy" in n or "synthetic" in n for n in run_notes)


def test_vllm_without_its_dev_mode_tells_no_rule_and_is_watched_as_before(server: HostileServer) -> None:
    server.scenario = vllm(SPECULATING)  # /server_info answers 404
    watch = ServerWatch(server.root)
    try:
        assert watch.facts.notes == () and watch.facts.speculating and watch.facts.gamma == 3
    finally:
        watch.close()


def sglang_metrics(generated: int, requests: int, verify: int, width: str, length: float, rate: float) -> str:
    """SGLang's /metrics (0.5.23): counters moved when requests end, gauges per decode-log window,
    two tensor-parallel ranks (`width` per rank, comma-separated)."""
    lines = [f"sglang:generation_tokens_total {generated}", f"sglang:num_requests_total {requests}",
             f"sglang:spec_verify_calls_total {verify}", "sglang:num_running_reqs 2"]
    for rank, w in enumerate(width.split(",")):
        lines += [f'sglang:spec_accept_length{{tp_rank="{rank}"}} {length}',
                  f'sglang:spec_accept_rate{{tp_rank="{rank}"}} {rate}',
                  f'sglang:spec_num_draft_tokens{{tp_rank="{rank}"}} {w}']
    return "\n".join(lines) + "\n"


def sglang(metrics: str) -> Scenario:
    info = {"version": "0.5.23", "speculative_algorithm": "EAGLE3", "speculative_num_draft_tokens": 4}
    return Scenario(models=[{"id": "m", "owned_by": "sglang"}],
                    get={"/get_server_info": (200, "application/json", json.dumps(info).encode()),
                         "/metrics": (200, "text/plain; version=0.0.4", metrics.encode())})


def test_sglangs_tau_from_its_counters_beside_its_gauge_and_a_varying_width_said(server: HostileServer) -> None:
    """τ over the requests that ended = (Δgenerated − Δrequests) ÷ Δverify steps: 3 requests of
    61 tokens in 24 verify steps give (183 − 3) ÷ 24 = 7.5, beside the gauge's 2.4. A width that
    changes between scrapes, or differs between ranks, is said: spec_accept_rate divides by it."""
    server.scenario = sglang(sglang_metrics(1000, 10, 400, "4,4", 2.4, 0.47))
    watch = ServerWatch(server.root)
    try:
        assert watch.kind.id == "sglang"
        model = WatchModel()
        model.feed(watch.scrape())
        serve_metrics(server, sglang_metrics(1183, 13, 424, "4,4", 2.4, 0.47))
        steady = model.feed(watch.scrape())
        serve_metrics(server, sglang_metrics(1183, 13, 424, "6,6", 2.1, 0.30))
        changed = model.feed(watch.scrape())
        serve_metrics(server, sglang_metrics(1183, 13, 424, "4,6", 2.1, 0.30))
        ragged = model.feed(watch.scrape())
    finally:
        watch.close()
    assert steady is not None and steady.accept_length_from_requests == pytest.approx(7.5)
    record = steady.to_dict()
    assert record["accept_length_from_requests"] == 7.5 and record["gauges"]["sglang:spec_accept_length"] == 2.4
    assert record["counters_update"] == "request_end" and steady.notes == ()
    assert "τ over the requests that ended 7.50" in line(steady, "en")
    assert changed is not None and changed.accept_length_from_requests is None  # no request ended
    assert [(n.id, n.values) for n in changed.notes] == [("width_varies", {"before": "4", "now": "6"})]
    assert ragged is not None and [n.id for n in ragged.notes] == ["width_varies"]  # ranks differ: mean 5


@pytest.mark.skipif(prometheus_binary() is None, reason="prometheus not installed (make deps-debian)")
def test_a_diffusion_lm_behind_prometheus_is_named_and_lacks_no_draft_series(server: HostileServer) -> None:
    server.scenario = vllm(DIFFUSION)
    target = server.root.removeprefix("http://")
    with prometheus([target], scrape_s=1.0) as prom:
        source = PrometheusFleet(prom.url, window_s=1.0, retention_s=30)
        try:
            (reading,) = source.poll()
        finally:
            source.close()
    assert reading.engine == "vllm" and reading.method == DIFFUSION_METHOD and reading.missing == ()
