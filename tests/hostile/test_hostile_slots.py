"""A hostile /slots: the requests pane stays bounded, shows no raw value and never fails the watch.

A real HTTP server on 127.0.0.1 answers llama-server's endpoints; its /slots turns, after the
watch began, into MAX_SLOTS entries of values that are not counts (text, -1, 1e300, escapes),
into more entries than that, or into no list at all. The pane keeps MAX_SHOWN_SLOTS, shows none
of the bad values (a dash) and says what the engine does not tell; too many slots is one error
naming /slots, as detection says it. vLLM and a generic server tell nothing
per request to a watcher: the pane says so.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from specview.boundary.bounds import MAX_SLOTS
from specview.features.watch.model.fleet import State
from specview.features.watch.model.requests import MAX_SHOWN_SLOTS, RequestsNow
from specview.features.watch.screen.requests_text import requests_lines
from specview.features.watch.source import ServerWatch
from specview.features.watch.source.direct import DirectFleet
from specview.kernel.errors import BackendError
from specview.kernel.langs import LANGS
from specview.texts.catalog import fill, text
from tests.support.hostile_server import HostileServer, Scenario, hostile_server

PROPS = json.dumps({"build_info": "b1", "default_generation_settings": {"params": {"speculative.types": "draft"}}})
METRICS = "# TYPE llamacpp:spec_decode_num_drafts counter\nllamacpp:spec_decode_num_drafts_total 1\n"
ESCAPE = "\x1b[31mred\x1b]8;;http://x\x07"


def llama(slots: object) -> Scenario:
    return Scenario(models=[{"id": "m", "owned_by": "llamacpp"}],
                    get={"/props": (200, "application/json", PROPS.encode()),
                         "/slots": (200, "application/json", json.dumps(slots).encode()),
                         "/metrics": (200, "text/plain; version=0.0.4", METRICS.encode())})


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def requests_of(server: HostileServer, scenario: Scenario) -> RequestsNow:
    """What the watch reads from `scenario`'s /slots (the watch began on a well-behaved one)."""
    server.scenario = Scenario(scenario.models, {**scenario.get, "/slots": (200, "application/json", b"[]")})
    watch = ServerWatch(server.root)
    server.scenario = scenario
    try:
        return watch.requests()
    finally:
        watch.close()


def test_a_full_slots_list_of_hostile_values_is_bounded_and_no_bad_value_is_shown(server: HostileServer) -> None:
    bad = ["x", -1, 1e300, True, ESCAPE, {"a": 1}, 2**60]
    slots = [{"id": bad[i % len(bad)], "is_processing": True, "n_prompt_tokens": bad[(i + 1) % len(bad)],
              "next_token": [{"n_decoded": bad[(i + 2) % len(bad)], "n_remain": -1}],
              "timings": {"draft_n": ESCAPE, "draft_n_accepted": "9"}} for i in range(MAX_SLOTS)]
    started = time.monotonic()
    now = requests_of(server, llama(slots))
    assert time.monotonic() - started < 10
    assert len(now.slots) == MAX_SHOWN_SLOTS and now.total == MAX_SLOTS and now.more == MAX_SLOTS - MAX_SHOWN_SLOTS
    assert all(s.decoded is None and s.remaining is None and s.prompt is None and s.drafted is None for s in now.slots)
    for lang in LANGS:
        shown = "\n".join(requests_lines(now, lang))
        assert "\x1b" not in shown and "red" not in shown and "1e+300" not in shown
        assert fill("watch.requests.more", lang, n=MAX_SLOTS - MAX_SHOWN_SLOTS) in shown
        assert text("watch.requests.llama_no_drafts", lang) in shown


def test_more_slots_than_any_server_has_is_one_error_naming_slots(server: HostileServer) -> None:
    with pytest.raises(BackendError, match=r"reading /slots: /slots has 10000 items, at most 4096"):
        requests_of(server, llama([{"id": 0}] * 10_000))


def test_a_slots_answer_that_is_no_list_says_there_is_nothing_per_request(server: HostileServer) -> None:
    now = requests_of(server, llama({"slots": "off"}))
    assert now.slots == () and now.note == "llama_no_slots"


def test_a_build_that_tells_drafts_per_slot_has_them_shown(server: HostileServer) -> None:
    slots = [{"id": 0, "is_processing": True, "n_prompt_tokens": 12,
              "next_token": [{"n_decoded": 40, "n_remain": 60}], "timings": {"draft_n": 30, "draft_n_accepted": 20}}]
    now = requests_of(server, llama(slots))
    assert now.note is None and (now.slots[0].drafted, now.slots[0].accepted) == (30, 20)
    assert requests_lines(now, "en")[1] == (fill("watch.requests.slot", id=0, decoded=40, remaining=60, prompt=12)
                                            + fill("watch.requests.drafts", drafted=30, accepted=20))


def test_vllm_and_a_generic_server_say_plainly_they_tell_nothing_per_request(server: HostileServer) -> None:
    vllm = Scenario(models=[{"id": "m", "owned_by": "vllm"}],
                    get={"/version": (200, "application/json", b'{"version": "0.32"}'),
                         "/metrics": (200, "text/plain; version=0.0.4", b"vllm:num_requests_running 1\n")})
    assert requests_of(server, vllm).note == "vllm"
    generic = Scenario(get={"/metrics": (200, "text/plain; version=0.0.4", b"up 1\n")})
    assert requests_of(server, generic).note == "none"
    for lang in LANGS:
        assert requests_lines(requests_of(server, vllm), lang)[-1] == text("watch.requests.vllm", lang)


# a build whose /props names no speculative type, with a slot that speculates: the method is
# still to learn, so every poll's describe() reads /slots too
UNNAMED = json.dumps({"build_info": "b1", "default_generation_settings": {"params": {}}})
BUSY = [{"id": 0, "is_processing": True, "speculative": True, "n_prompt_tokens": 12, "next_token": [{"n_decoded": 5}]}]


def unnamed_llama(slots: object) -> Scenario:
    scenario = llama(slots)
    return Scenario(scenario.models, {**scenario.get, "/props": (200, "application/json", UNNAMED.encode())})


def test_one_poll_asks_the_server_for_slots_once(server: HostileServer) -> None:
    """The tokens in flight, the requests pane and the method still to learn all read /slots: one
    request a poll serves them all, and the next poll asks again."""
    server.scenario = unnamed_llama(BUSY)
    watch = ServerWatch(server.root)
    try:
        assert watch.facts.speculating and watch.facts.method is None  # describe() asks /slots
        for poll in range(2):
            before = server.requests.count("GET /slots")
            with watch.one_poll():
                scrape = watch.scrape()
                watch.describe()
                now = watch.requests()
            assert server.requests.count("GET /slots") - before == 1, f"poll {poll}"
            assert scrape.in_flight == 5 and len(now.slots) == 1
    finally:
        watch.close()


def test_one_fleet_poll_asks_each_direct_target_for_slots_once(server: HostileServer) -> None:
    """A fleet target's poll (scrape, then describe learning the method) reads /slots once; the poll
    ends with it, so the target's watch asks afresh after it."""
    server.scenario = unnamed_llama(BUSY)
    fleet = DirectFleet([server.root], deadline_s=10.0)
    try:
        fleet.connect()
        for poll in range(2):
            before = server.requests.count("GET /slots")
            (reading,) = fleet.poll()
            assert reading.state is State.UP and reading.method is None, reading.error
            assert server.requests.count("GET /slots") - before == 1, f"poll {poll}"
        watch = fleet._targets[0].watch
        assert watch is not None
        before = server.requests.count("GET /slots")
        watch.requests()
        assert server.requests.count("GET /slots") - before == 1  # no answer left from the poll
    finally:
        fleet.close()


def test_requests_on_their_own_ask_the_server_each_time(server: HostileServer) -> None:
    """Outside a poll (no scrape before it) every requests() reads /slots afresh: a pane polled on its
    own sees a slot start decoding."""
    server.scenario = llama([])
    watch = ServerWatch(server.root)
    try:
        watch.scrape()
        assert watch.requests().slots == ()
        server.scenario = llama([{"id": 0, "is_processing": True, "n_prompt_tokens": 3}])
        before = server.requests.count("GET /slots")
        assert len(watch.requests().slots) == 1 and len(watch.requests().slots) == 1
        assert server.requests.count("GET /slots") - before == 2
    finally:
        watch.close()
