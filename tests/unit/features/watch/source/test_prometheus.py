"""The Prometheus fleet source's pieces that need no server: the series it knows (from the server
kinds), the query it sends, and what the command line gives its constructor."""

from __future__ import annotations

from argparse import Namespace

import pytest

from specview.features.watch.source.prometheus import DEFAULT_RETENTION_S, prometheus_fleet_of
from specview.features.watch.source.promql import engine_series, match_selector, now_query
from specview.kernel.errors import CliError


def test_the_series_come_from_the_server_kinds() -> None:
    series = {s.engine: s for s in engine_series()}
    assert set(series) >= {"llama-server", "vllm", "sglang"}
    assert series["llama-server"].drafts == "llamacpp:spec_decode_num_drafts_total"
    assert series["llama-server"].per_position == "llamacpp:spec_decode_num_accepted_tokens_per_pos_total"
    assert series["vllm"].tokens == "vllm:generation_tokens_total"
    assert series["vllm"].active == "vllm:num_requests_running"
    assert series["sglang"].drafts is None and series["sglang"].gauges == ("sglang:spec_accept_length",
                                                                          "sglang:spec_accept_rate")
    assert "generic" not in series and "tabbyapi" not in series  # nothing in Prometheus to know them by


def test_the_match_goes_into_every_selector_and_nothing_else() -> None:
    query = now_query(match_selector('{job="vllm", instance=~"gpu-.*"}'))
    assert query.count('job="vllm",instance=~"gpu-.*"') == 4  # counters, gauges, up, timestamp(up)
    assert 'up{job="vllm",instance=~"gpu-.*"}' in query
    assert "up{}" not in now_query("")


def test_the_command_line_builds_the_fleet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROM_TOKEN", "tok-0123456789")
    args = Namespace(prometheus="http://127.0.0.1:9090", match='job="a"', prometheus_user=None,
                     prometheus_password_env=None, prometheus_token_env="PROM_TOKEN", interval=3.0, retention=None)
    fleet = prometheus_fleet_of(args)
    assert (fleet.root, fleet.window_s, fleet.retention_s) == ("http://127.0.0.1:9090", 3.0, DEFAULT_RETENTION_S)
    fleet.close()
    monkeypatch.delenv("PROM_TOKEN")
    with pytest.raises(CliError, match=r"--prometheus-token-env names \$PROM_TOKEN"):
        prometheus_fleet_of(args)
    with pytest.raises(CliError, match="--match"):
        prometheus_fleet_of(Namespace(prometheus="http://127.0.0.1:9090", match="job=a"))
    with pytest.raises(CliError, match="not both"):
        prometheus_fleet_of(Namespace(prometheus="http://h:1", prometheus_user="u", prometheus_password_env="P",
                                      prometheus_token_env="T"))


def test_sglangs_verify_counters_and_width_are_asked_but_not_required() -> None:
    """τ from counters needs `spec_verify_calls_total` and `num_requests_total`, the accept-rate
    note the width gauge: all three are read where Prometheus has them, and an older SGLang
    without them lacks nothing it should export."""
    sglang = {s.engine: s for s in engine_series()}["sglang"]
    assert (sglang.verify, sglang.requests, sglang.width) == (
        "sglang:spec_verify_calls_total", "sglang:num_requests_total", "sglang:spec_num_draft_tokens")
    assert sglang.cadence == "request_end"
    query = now_query("")
    assert all(name in query for name in (sglang.verify, sglang.requests, sglang.width))
    assert not {sglang.verify, sglang.requests, sglang.width} & set(sglang.expected)
