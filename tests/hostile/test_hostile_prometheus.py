"""`watch --prometheus` against a Prometheus that misbehaves (a real HTTP server on 127.0.0.1).

Down, 401/403 (with and without credentials), a query error, an answer with 10⁶ series (refused at
the body bound, memory bounded) or with more series or instances than specview reads, NaN/±Inf
samples, label values with escapes and terminal controls, a selector that matches nothing, a
--match that tries to add PromQL of its own: one clear error (or a reading's error or note) each,
in bounded time, and nothing from outside in a message raw.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from specview.boundary.secrets import forget_secrets
from specview.features.watch.model.fleet import State, said_in
from specview.features.watch.source.prometheus import MAX_INSTANCES, PrometheusFleet
from specview.features.watch.source.prometheus_api import MAX_SERIES, PrometheusAuth
from specview.features.watch.source.promql import match_selector
from specview.kernel.errors import BackendError, CliError
from tests.support.hostile_checks import HOSTILE, SECRET, assert_terminal_clean
from tests.support.hostile_server import HostileServer, Scenario, hostile_server
from tests.support.hostile_wire import GONE, head

JSON = "application/json"
LLAMA = "llamacpp:spec_decode_"
NOW = 1_800_000_000.0


@pytest.fixture
def server() -> Iterator[HostileServer]:
    forget_secrets()
    with hostile_server() as running:
        yield running
    forget_secrets()


def series(labels: dict[str, str], value: str, t: float = NOW) -> dict[str, Any]:
    return {"metric": labels, "value": [t, value]}


def instance(name: str, values: dict[str, str], *, up: str = "1") -> list[dict[str, Any]]:
    """What the instant query answers for one llama-server instance."""
    base = {"instance": name, "job": "j"}
    found = [series({**base, "specview_part": "up"}, up), series({**base, "specview_part": "scraped"}, str(NOW))]
    for key, value in values.items():
        name_part, _, position = key.partition("@")
        labels = {**base, "__name__": name_part, "specview_part": "count"}
        if position:
            labels["position"] = position
        found.append(series(labels, value))
    return found


def answer(result: list[dict[str, Any]]) -> bytes:
    return json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}).encode()


def serve(server: HostileServer, body: bytes, code: int = 200) -> PrometheusFleet:
    server.scenario = Scenario(get={"/api/v1/query": (code, JSON, body)})
    return PrometheusFleet(server.root)


def clean_error(exc: pytest.ExceptionInfo[BaseException]) -> str:
    """The one line a failure says, asserted clean."""
    message = str(exc.value)
    assert "\n" not in message and "\r" not in message
    assert_terminal_clean(message.encode())
    assert "\x1b" not in message and "\x07" not in message
    return message


COUNTS = {f"{LLAMA}num_drafts_total": "10", f"{LLAMA}num_draft_tokens_total": "30",
          f"{LLAMA}num_accepted_tokens_total": "20", f"{LLAMA}num_accepted_tokens_per_pos_total@0": "9",
          f"{LLAMA}num_accepted_tokens_per_pos_total@1": "7", f"{LLAMA}num_accepted_tokens_per_pos_total@2": "4",
          "llamacpp:tokens_predicted_total": "50", "llamacpp:requests_processing": "1"}


def test_prometheus_down_is_one_line_naming_it() -> None:
    with hostile_server() as closed:
        root = closed.root
    fleet = PrometheusFleet(root)
    started = time.monotonic()
    with pytest.raises(BackendError) as exc:
        fleet.poll()
    assert time.monotonic() - started < 10
    message = clean_error(exc)
    assert "cannot connect to" in message and root in message


@pytest.mark.parametrize("code", [401, 403])
def test_401_and_403_say_which_flags_give_credentials(server: HostileServer, code: int) -> None:
    fleet = serve(server, b'{"status": "error", "error": "' + HOSTILE.encode("unicode_escape") + b'"}', code)
    with pytest.raises(BackendError) as exc:
        fleet.poll()
    message = clean_error(exc)
    assert f"answered {code}" in message and "--prometheus-token-env" in message
    assert "--api-key-env" not in message  # the flags of a direct watch would not help


def test_a_refused_token_names_its_variable_and_never_shows_it(server: HostileServer,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROM_TOKEN", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-ambient-never-sent-0123456789")
    server.scenario = Scenario(get={"/api/v1/query": (401, JSON, b'{"status":"error","error":"bad token @KEY@"}')})
    fleet = PrometheusFleet(server.root, auth=PrometheusAuth.from_env(None, None, "PROM_TOKEN"))
    with pytest.raises(BackendError) as exc:
        fleet.poll()
    message = clean_error(exc)
    assert "$PROM_TOKEN" in message and SECRET not in message
    assert server.authorizations == [f"Bearer {SECRET}"]  # the named variable, to Prometheus only


def test_basic_auth_travels_and_an_unset_variable_is_refused(server: HostileServer,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROM_PASSWORD", SECRET)
    server.scenario = Scenario(get={"/api/v1/query": (200, JSON, answer(instance("a:1", COUNTS)))})
    fleet = PrometheusFleet(server.root, auth=PrometheusAuth.from_env("admin", "PROM_PASSWORD", None))
    assert fleet.poll()[0].state is State.UP
    assert server.authorizations and all((sent or "").startswith("Basic ") for sent in server.authorizations)
    monkeypatch.delenv("PROM_PASSWORD")
    with pytest.raises(CliError, match=r"--prometheus-password-env names \$PROM_PASSWORD, which is not set"):
        PrometheusAuth.from_env("admin", "PROM_PASSWORD", None)
    with pytest.raises(CliError, match="needs --prometheus-password-env"):
        PrometheusAuth.from_env("admin", None, None)


def test_a_query_error_is_one_line(server: HostileServer) -> None:
    body = json.dumps({"status": "error", "errorType": "execution", "error": "boom " + HOSTILE}).encode()
    with pytest.raises(BackendError) as exc:
        serve(server, body).poll()  # a 200 that says error (some proxies do)
    assert "refused the query (execution: boom" in clean_error(exc)
    with pytest.raises(BackendError) as exc:
        serve(server, body, 422).poll()  # what Prometheus itself sends
    assert "HTTP 422" in clean_error(exc)


def million_series(handler: BaseHTTPRequestHandler) -> None:
    """An answer of 10⁶ series (~100 MB), written as it goes."""
    one = b'{"metric":{"__name__":"llamacpp:requests_processing","instance":"i%07d","job":"j"},"value":[1,"1"]}'
    try:
        head(handler, "200 OK", {"Content-Type": JSON, "Transfer-Encoding": "chunked"})
        start = b'{"status":"success","data":{"resultType":"vector","result":['
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(start), start))
        for block in range(1000):
            chunk = b",".join(one % (block * 1000 + k) for k in range(1000)) + b","
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    except GONE:
        return


def test_a_million_series_are_refused_with_memory_bounded(server: HostileServer) -> None:
    server.wire["/api/v1/query"] = million_series
    fleet = PrometheusFleet(server.root)
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(BackendError) as exc:
            fleet.poll()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 20
    assert "more than 8 MiB" in clean_error(exc)
    assert peak < 64 * 2**20, peak


def test_more_series_or_instances_than_specview_reads_are_refused(server: HostileServer) -> None:
    many = [series({"instance": f"i{k}", "job": "j", "specview_part": "up"}, "1") for k in range(MAX_SERIES + 1)]
    with pytest.raises(BackendError) as exc:
        serve(server, answer(many)).poll()
    assert f"more than specview reads ({MAX_SERIES}); narrow the instances with --match" in clean_error(exc)
    with pytest.raises(BackendError) as exc:
        serve(server, answer(many[:MAX_INSTANCES + 1])).poll()
    assert f"beyond the {MAX_INSTANCES} specview watches" in clean_error(exc)


@pytest.mark.parametrize("value", ["NaN", "+Inf", "-Inf", "-3", "1e300"])
def test_a_counter_that_is_not_a_count_makes_that_instance_an_error(server: HostileServer, value: str) -> None:
    result = instance("bad:1", {**COUNTS, f"{LLAMA}num_accepted_tokens_total": value}) + instance("good:1", COUNTS)
    readings = {r.instance: r for r in serve(server, answer(result)).poll()}
    bad = readings["bad:1"]
    assert bad.state is State.DOWN and bad.error is not None
    error = str(bad.error)  # the English of the Phrase the screen renders
    assert f"{LLAMA}num_accepted_tokens_total = " in error and "not a count" in error
    assert readings["good:1"].state is State.UP  # the rest of the fleet is read


def test_a_gauge_that_is_not_finite_is_left_out_with_a_note(server: HostileServer) -> None:
    base = {"instance": "sg:1", "job": "j"}
    result = [series({**base, "specview_part": "up"}, "1"),
              series({**base, "__name__": "sglang:generation_tokens_total", "specview_part": "count"}, "5"),
              series({**base, "__name__": "sglang:spec_accept_length", "specview_part": "gauge"}, "NaN"),
              series({**base, "__name__": "sglang:spec_accept_rate", "specview_part": "gauge"}, "0.5")]
    fleet = serve(server, answer(result))
    assert fleet.poll()[0].engine == "sglang"
    result[2]["value"] = [NOW + 1, "+Inf"]
    result[0:0] = [series({**base, "specview_part": "scraped"}, str(NOW + 1))]
    server.scenario = Scenario(get={"/api/v1/query": (200, JSON, answer(result))})
    (reading,) = fleet.poll()
    assert reading.sample is not None
    assert reading.sample.gauges == {"sglang:spec_accept_rate": 0.5}
    assert [n.id for n in reading.sample.notes] == ["prometheus_not_finite", "prometheus_no_history"]


def test_hostile_label_values_stay_data_and_never_reach_a_message_raw(server: HostileServer) -> None:
    evil = "gpu-1" + HOSTILE
    result = instance(evil, {**COUNTS, f"{LLAMA}num_accepted_tokens_per_pos_total@" + HOSTILE: "1"})
    (reading,) = serve(server, answer(result)).poll()
    assert reading.instance == evil  # data: the screen sanitizes what it shows
    assert reading.state is State.DOWN and reading.error is not None
    for lang in ("en", "zh"):
        error = said_in(reading.error, lang) or ""
        assert_terminal_clean(error.encode())
        assert "\x1b" not in error and "\x07" not in error
    assert "has position" in str(reading.error)


def test_a_selector_that_matches_nothing_is_one_line(server: HostileServer) -> None:
    server.scenario = Scenario(get={"/api/v1/query": (200, JSON, answer([]))})
    with pytest.raises(BackendError) as exc:
        PrometheusFleet(server.root, match='{job="nothing"}').poll()
    message = clean_error(exc)
    assert 'has no instance matching {job="nothing"}' in message and "--match" in message


@pytest.mark.parametrize("match", [
    '{job="a"}) or vector(1) #',
    'job="a"} or up{',
    'job="a\x1b[2J"',
    "job='a'",
    '__name__="up"',
    'job="a" instance="b"',
    "x" * 3000,
])
def test_a_match_that_is_not_a_label_selector_is_refused(match: str) -> None:
    with pytest.raises(CliError) as exc:
        match_selector(match)
    assert_terminal_clean(str(exc.value).encode())
    assert "\x1b" not in str(exc.value)


def test_a_good_match_is_kept_as_written() -> None:
    assert match_selector(' { job = "vllm" , instance=~"gpu-\\\\d+" } ') == 'job="vllm",instance=~"gpu-\\\\d+"'
    assert match_selector(None) == "" and match_selector("{}") == ""


def test_a_failed_history_is_said_with_the_first_sample(server: HostileServer) -> None:
    server.scenario = Scenario(get={"/api/v1/query": (200, JSON, answer(instance("a:1", COUNTS)))})
    fleet = PrometheusFleet(server.root)  # /api/v1/query_range answers 404 here
    (first,) = fleet.poll()
    assert first.state is State.UP and first.sample is None and first.history == ()
    later = instance("a:1", {**COUNTS, f"{LLAMA}num_drafts_total": "11"})
    later[1]["value"] = [NOW + 1, str(NOW + 1)]
    server.scenario = Scenario(get={"/api/v1/query": (200, JSON, answer(later))})
    (second,) = fleet.poll()
    assert second.sample is not None and second.sample.drafts == 1
    (note,) = second.sample.notes
    assert note.id == "prometheus_no_history" and "404" in note.values["error"]


def test_a_down_target_says_prometheus_own_scrape_error_scrubbed(server: HostileServer) -> None:
    targets = {"status": "success", "data": {"activeTargets": [
        {"labels": {"instance": "a:1", "job": "j"}, "health": "down", "lastError": "refused " + HOSTILE}]}}
    server.scenario = Scenario(get={"/api/v1/query": (200, JSON, answer(instance("a:1", {}, up="0"))),
                                    "/api/v1/targets": (200, JSON, json.dumps(targets).encode())})
    (reading,) = PrometheusFleet(server.root).poll()
    assert reading.state is State.DOWN and reading.error is not None
    assert str(reading.error).startswith("Prometheus's last scrape of it failed (up = 0): refused ")
    for lang in ("en", "zh"):
        error = said_in(reading.error, lang) or ""
        assert_terminal_clean(error.encode())
        assert "\x1b" not in error and "\n" not in error


def test_a_reflected_token_is_masked_in_any_error(server: HostileServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROM_TOKEN", SECRET)
    body = b'{"status":"error","errorType":"internal","error":"token @KEY@ rejected"}'
    for code in (200, 500):
        server.scenario = Scenario(get={"/api/v1/query": (code, JSON, body)})
        fleet = PrometheusFleet(server.root, auth=PrometheusAuth.from_env(None, None, "PROM_TOKEN"))
        with pytest.raises(BackendError) as exc:
            fleet.poll()
        message = clean_error(exc)
        assert SECRET not in message and "token *** rejected" in message
