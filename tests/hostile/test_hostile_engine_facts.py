"""Engine facts a real engine on this machine cannot show, served as fixed /metrics bodies by a
real HTTP server: llama-server's counters that land when a request ends and its gauges that each
scrape resets, SGLang's counters beside its gauges, a vLLM diffusion model, vLLM's lossy FLy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from specview.cli import main
from specview.features.watch.model import WatchModel
from specview.features.watch.source import ServerWatch
from tests.support.hostile_server import HostileServer, Scenario, hostile_server

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
