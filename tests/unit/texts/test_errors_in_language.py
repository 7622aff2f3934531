"""The errors of the backends and of `specview watch` are catalog ids with fields: each one raised
here for real reads in Chinese with every field filled (no "?" for a field the template names and
the raise did not give), names its data, and its English (`str`) is the text it always was.

One row per converted module (backends/… and features/watch/…): the call that fails, the id it
raises, and the data the Chinese text must show.
"""

from __future__ import annotations

import argparse
import re
import threading
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from specview.backends.factory import make_backend
from specview.backends.local.backend import LlamaBackend
from specview.backends.local.gguf_info import read_gguf_info
from specview.backends.local.model import check_gguf_file
from specview.backends.local.options import LlamaOptions
from specview.backends.local.pool import POOL
from specview.backends.local.token_rows import position_rows
from specview.backends.local.tree import check_tree, tree_of
from specview.backends.process import ChildProcessBackend
from specview.backends.reason import reason_of
from specview.backends.remote.backend import OpenAIBackend
from specview.backends.remote.base_url import parse_base_url
from specview.backends.remote.client import Connection
from specview.backends.remote.deadline import Flight
from specview.backends.remote.decode import body_encoding
from specview.backends.remote.dialect import counter
from specview.backends.remote.http_errors import KeyUse, redirect_error, status_error, transport_error
from specview.backends.remote.kinds.vllm import parse_request_stats
from specview.backends.remote.llama_ledger import RoundLedger
from specview.backends.remote.metrics import _position
from specview.backends.remote.registry import checked_kind
from specview.backends.remote.server_values import server_values
from specview.backends.remote.sse import iter_event_data
from specview.backends.replay import ReplayBackend, ReplayOptions, make_replay_backend
from specview.backends.selector import parse_selector
from specview.backends.sim.backend import SimBackend
from specview.boundary.bounds import Invalid
from specview.catalog.presets import DEFAULT_PRESET, get_preset
from specview.features.watch.command import run as run_watch
from specview.features.watch.command.fleet_run import open_fleet
from specview.features.watch.command.targets import all_targets, parse_targets
from specview.features.watch.model.fleet import said_in
from specview.features.watch.runner.alert_hook import command_argv
from specview.features.watch.screen.fleet_filter import compile_filter
from specview.features.watch.source.direct import DirectFleet
from specview.features.watch.source.prometheus_answer import InstanceAnswer, count_of
from specview.features.watch.source.prometheus_api import PrometheusAuth
from specview.features.watch.source.promql import match_selector
from specview.kernel.errors import SpecviewError, describe_error
from specview.kernel.runspec import RunSpec
from specview.texts.catalog import Phrase, catalog, text
from tests.support.catalog_walk import fields
from tests.support.recordings import record_sim

CJK = re.compile(r"[\u4e00-\u9fff]")
DEAD = "http://127.0.0.1:9"  # the discard port: nothing listens there, a connection is refused at once


def _phrase_of(exc: BaseException) -> Phrase:
    """The Phrase an error carries: a SpecviewError's own, or the one a parser's ValueError holds."""
    if isinstance(exc, SpecviewError):
        return exc.phrase
    said = reason_of(exc)
    assert isinstance(said, Phrase), f"{type(exc).__name__} carries no Phrase: {exc}"
    return said


def holes(phrase: Phrase, lang: str) -> list[str]:
    """'id: field' for each field a template names that its Phrase (or one nested in it) lacks, and
    each id no catalog of `lang` has."""
    texts = catalog(lang)
    if phrase.key not in texts:
        return [f"{phrase.key}: no such id in {lang}"]
    found = [f"{phrase.key}: {name}" for name in fields(texts[phrase.key]) if name not in phrase.fields]
    for value in phrase.fields.values():
        if isinstance(value, SpecviewError):
            value = value.phrase
        if isinstance(value, Phrase):
            found += holes(value, lang)
    return found


def _raised(call: Callable[[], object]) -> BaseException:
    try:
        call()
    except (SpecviewError, ValueError) as exc:
        return exc
    raise AssertionError("it did not fail")


def _flight(kind: str = "request", *, expired: bool = False) -> Flight:
    flight = Flight(object(), "http://h:1", Phrase("backenderr.doing.metrics"), 2.5, kind)
    if expired:
        flight.expired = (kind, 2.5)
    return flight


def _throw(exc: BaseException) -> None:
    raise exc


def _unread_gguf(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"NOPE" + bytes(60))
    read_gguf_info(bad)


def _short_replay(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    record_sim(path, 3)
    ReplayBackend(path, segment=4)


def _stats(drafted: list[int], accepted: list[int]) -> None:
    parse_request_stats({"metrics": {"speculative_decoding": {"per_step_drafted": drafted,
                                                              "per_step_accepted": accepted}}})


def _down_reading(tmp_path: Path) -> None:
    """A fleet target that refuses: its reading's error is a Phrase, raised here to be checked."""
    fleet = DirectFleet([DEAD], deadline_s=5.0)
    try:
        (reading,) = fleet.poll()
    finally:
        fleet.close()
    assert isinstance(reading.error, Phrase)
    raise SpecviewError(reading.error.key, **reading.error.fields)


def _watch_args(**given: object) -> argparse.Namespace:
    names = ("url", "targets", "prometheus", "once", "csv", "check", "on_alert", "retention", "json", "count")
    return argparse.Namespace(**{name: None for name in names} | given)


def _no_counts() -> None:
    count_of(InstanceAnswer(values={("vllm:x_total", ""): float("nan")}), "vllm:x_total")


# (module, the call that fails, the id it raises, data its Chinese text shows)
CASES: list[tuple[str, Callable[[Path], object], str, tuple[str, ...]]] = [
    ("replay", lambda _: make_replay_backend(RunSpec()), "backenderr.replay.no_file", ()),
    ("replay", _short_replay, "backenderr.replay.no_segment", ("one.jsonl#4", "1")),
    ("selector", lambda _: parse_selector("models/t.gguf", RunSpec()), "backenderr.selector.neither",
     ("models/t.gguf",)),
    ("factory", lambda _: make_backend(RunSpec(tree="2x2")), "backenderr.factory.tree_local", ("模拟器",)),
    ("factory", lambda _: make_backend(RunSpec(gamma_auto=True, options=ReplayOptions(recording="x.jsonl"))),
     "backenderr.factory.auto_replay",
     ("γ",)),
    ("sim", lambda _: SimBackend(get_preset(DEFAULT_PRESET), gamma=99), "backenderr.sim.gamma", ("99",)),
    ("http_errors", lambda _: _throw(transport_error(httpx.ReadTimeout("slow"), "http://h:1",
                                                     Phrase("backenderr.doing.metrics"),
                                                     _flight("headers", expired=True), answered=False,
                                                     streaming=False)),
     "backenderr.http.expired_headers", ("http://h:1", "2.5", "读取 /metrics")),
    ("http_errors", lambda _: _throw(redirect_error("http://h:1", 302, None, "http://h:1/a",
                                                    Phrase("backenderr.doing.models"))),
     "backenderr.http.redirect_nowhere", ("302", "列出模型")),
    ("http_errors", lambda _: _throw(status_error("http://h:1", KeyUse("K", False, False), 401, "no key",
                                                  Phrase("backenderr.doing.streaming"), None)),
     "backenderr.http.key_wanted", ("401", "no key", "--api-key-env")),
    ("client", lambda _: parse_base_url("ftp://h/v1"), "backenderr.client.bad_scheme", ("ftp://h/v1",)),
    ("client", lambda _: Connection(DEAD, None, None).served_models(), "backenderr.http.cannot_connect",
     (DEAD, "服务器是否在运行")),
    ("decode", lambda _: body_encoding(["gzip", "br"]), "backenderr.decode.refused", ("gzip, br", "叠加")),
    ("sse", lambda _: list(iter_event_data([b"data: " + b"x" * 64], 16)), "backenderr.sse.line_too_long",
     ("16",)),
    ("dialect", lambda _: counter(-1, "usage.completion_tokens"), "backenderr.dialect.not_count",
     ("usage.completion_tokens", "-1")),
    ("metrics", lambda _: _position("vllm:spec_decode_num_accepted_tokens_per_pos_total", "x"),
     "backenderr.metrics.position_not_whole", ("'x'", "vllm:spec_decode")),
    ("vllm", lambda _: _stats([2, 2], [1]), "backenderr.vllm.steps_differ", ("2", "1")),
    ("llama_ledger", lambda _: RoundLedger(3).feed(1, 2, 5, 1.0, "a", 0.0), "backenderr.ledger.accepted_over",
     ("5", "2")),
    ("server_values", lambda _: _server_values_fail(), "backenderr.server_values.unusable", ("http://h:1", "读取")),
    ("remote backend", lambda _: OpenAIBackend(RunSpec()), "backenderr.remote.no_url", ()),
    ("registry", lambda _: checked_kind("nope"), "backenderr.registry.unknown_server", ("'nope'", "vllm")),
    ("local model", lambda p: check_gguf_file(p / "gone.gguf", "draft"), "backenderr.model.not_found",
     ("草稿", "gone.gguf")),
    ("local pool", lambda p: POOL.acquire(p / "gone.gguf", "target", 0), "backenderr.pool.unreadable",
     ("目标", "gone.gguf")),
    ("token_rows", lambda _: position_rows("t.gguf", None, [], 1, 0.0), "backenderr.rows.prefix", ("0",)),
    ("local tree", lambda _: check_tree(tree_of("2x3"), "ngram", plain=False, adaptive=False),
     "backenderr.tree.ngram", ("2x3",)),
    ("local backend", lambda p: LlamaBackend(p / "t.gguf", LlamaOptions(gamma=99)), "backenderr.llama.gamma", ("99",)),
    ("gguf_info", _unread_gguf, "backenderr.gguf.not_gguf", ("bad.gguf",)),
    ("process", lambda p: _replay_in_a_child(p), "backenderr.as_is", ("damaged.jsonl", "第 ")),
    ("watch alert_hook", lambda _: command_argv("'open"), "watcherr.hook.split", ("quotation",)),
    ("watch promql", lambda _: match_selector('{job="a"'), "watcherr.match.unclosed", ("{",)),
    ("watch prometheus_api", lambda _: PrometheusAuth.from_env(None, "SPECVIEW_NO_SUCH_VAR", None),
     "watcherr.auth.password_needs_user", ("--prometheus-user",)),
    ("watch prometheus", lambda _: _no_counts(), "watcherr.prometheus.not_count", ("vllm:x_total", "nan")),
    ("watch direct", _down_reading, "backenderr.http.cannot_connect", (DEAD,)),
    ("watch fleet_filter", lambda _: compile_filter("(a+)+"), "fleetscreen.filter.nested", ()),
    ("watch targets", lambda _: parse_targets(b"http://a:1\nhttp://a:1\n", "--targets t.txt"),
     "watcherr.targets.repeats", ("t.txt", "2", "1")),
    ("watch targets", lambda _: all_targets([DEAD, DEAD], None), "watcherr.targets.url_twice", (DEAD,)),
    ("watch fleet_run", lambda _: open_fleet(_watch_args(prometheus=DEAD, url=[DEAD]), None, "zh"),  # type: ignore[arg-type]
     "watcherr.command.prometheus_and_urls", ("--prometheus",)),
    ("watch command", lambda _: run_watch(_watch_args(url=None)), "watcherr.command.no_url", ("--url",)),
]


def _server_values_fail() -> None:
    with server_values("http://h:1", Phrase("backenderr.doing.metrics")):
        raise Invalid(Phrase("backenderr.dialect.drafted", drafted=0, most=16))


def _replay_in_a_child(tmp_path: Path) -> None:
    """A replay whose recording breaks after its header, run in a child process: the child sends the
    error's id and fields, and the parent's error reads in Chinese (the recording's frame too)."""
    path = tmp_path / "damaged.jsonl"
    record_sim(path, 3)
    path.write_text(path.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    list(ChildProcessBackend(ReplayBackend(path, speed=0.0)).rounds(threading.Event()))


@pytest.mark.parametrize(("module", "call", "key", "data"), CASES, ids=[f"{c[0]}:{c[2]}" for c in CASES])
def test_each_error_reads_in_chinese_with_its_fields(module: str, call: Callable[[Path], object], key: str,
                                                     data: tuple[str, ...], tmp_path: Path) -> None:
    exc = _raised(lambda: call(tmp_path))
    phrase = _phrase_of(exc)
    if key != "backenderr.as_is":
        assert phrase.key == key
    assert holes(phrase, "zh") == [] and holes(phrase, "en") == []
    zh = phrase.render("zh")
    assert CJK.search(zh), zh
    assert "?" not in zh, zh
    for value in data:
        assert value in zh, (value, zh)
    assert str(exc) == phrase.render("en") and not CJK.search(str(exc))  # str is the English
    if isinstance(exc, SpecviewError):
        assert describe_error(exc, "zh") == zh


def test_every_backend_and_watch_text_has_both_languages_with_the_same_fields() -> None:
    en, zh = catalog("en"), catalog("zh")
    ours = [k for k in en if k.startswith(("backenderr.", "watcherr."))]
    assert len(ours) > 200
    assert sorted(ours) == sorted(k for k in zh if k.startswith(("backenderr.", "watcherr.")))
    assert [k for k in ours if fields(en[k]) != fields(zh[k])] == []
    # only templates of data and punctuation read without a Chinese word
    assert {k for k in ours if not CJK.search(zh[k])} == {
        "backenderr.as_is", "backenderr.http.suffix", "backenderr.http.paren", "backenderr.client.with_hint",
        "backenderr.sse.mib", "backenderr.prompt.where_option", "backenderr.decode.refused"}


def test_a_fleet_reading_that_is_down_says_why_in_the_language_of_its_output() -> None:
    fleet = DirectFleet([DEAD], deadline_s=5.0)
    try:
        (reading,) = fleet.poll()
    finally:
        fleet.close()
    en, zh = said_in(reading.error, "en") or "", said_in(reading.error, "zh") or ""
    assert en.startswith(f"cannot connect to {DEAD} (") and "is the server running" in en
    assert zh.startswith(f"无法连接到 {DEAD}") and text("backenderr.doing.metrics", "zh") not in en


def test_the_child_process_sends_the_id_and_the_fields_not_the_english(tmp_path: Path) -> None:
    exc = _raised(lambda: _replay_in_a_child(tmp_path))
    assert isinstance(exc, SpecviewError)
    (inner,) = exc.phrase.fields.values()
    assert isinstance(inner, Phrase) and inner.key == "error.at_line"  # the recording's frame, rebuilt
    assert inner.fields["path"] == str(tmp_path / "damaged.jsonl") and isinstance(inner.fields["line"], int)
    assert f"{tmp_path / 'damaged.jsonl'} 第 {inner.fields['line']} 行" in describe_error(exc, "zh")
