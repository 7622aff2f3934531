"""Request deadlines (backends/remote/deadline.py) against a real server on 127.0.0.1: what they
cut, what they must not cut (a reader that holds an event, as a paused view does), and a stop
before the headers."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Iterator

import pytest

import tests.support.hostile_wire as wire
from specview.backends.remote import deadline
from specview.backends.remote.backend import OpenAIBackend
from specview.backends.remote.client import Connection
from specview.backends.remote.options import RemoteOptions
from specview.backends.remote.timeouts import Timeouts
from specview.kernel.errors import BackendError
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from tests.support.hostile_server import HostileServer, Scenario, chat_chunk, hostile_server
from tests.support.waiting import wait_until

BODY = {"model": "m", "messages": [], "stream": True}


@pytest.fixture
def server() -> Iterator[HostileServer]:
    with hostile_server() as running:
        yield running


def test_holding_an_event_is_not_a_stalled_stream(server: HostileServer) -> None:
    """A paused view holds an event for longer than any deadline; reading on afterwards works."""
    def apart() -> Iterable[bytes]:  # "b" comes past the event deadline, while the reader still holds "a"
        server.release.wait(0.6)
        return []

    server.scenario = Scenario(events=[chat_chunk("a"), apart, chat_chunk("b")])
    conn = Connection(server.url, None, None)
    try:
        texts = []
        for event, _ in conn.stream(f"{server.root}/v1/chat/completions", BODY, threading.Event(),
                                    read_timeout=0.3, max_events=100, max_seconds=0.6, model=None):
            texts.append(event["choices"][0]["delta"]["content"])
            threading.Event().wait(1.0)  # the pause under test: past both the event and the whole deadline
    finally:
        conn.close()
    assert texts == ["a", "b", ""]


def test_a_stream_still_going_past_its_whole_deadline(server: HostileServer) -> None:
    def steady() -> Iterable[bytes]:
        for k in range(100):
            if server.release.wait(0.1):
                return
            yield b"data: " + json.dumps(chat_chunk(f"t{k}")).encode() + b"\n\n"

    server.scenario = Scenario(events=[steady], done=False)
    conn = Connection(server.url, None, None)
    got = []
    started = time.monotonic()
    with pytest.raises(BackendError, match=r"was still streaming after 1 s .*--stream-timeout"):
        for event, _ in conn.stream(f"{server.root}/v1/chat/completions", BODY, threading.Event(),
                                    read_timeout=5.0, max_events=1000, max_seconds=1.0, model=None):
            got.append(event)
    conn.close()
    assert 3 <= len(got) < 20 and time.monotonic() - started < 3.0  # events kept coming: only the wall clock ends it


def test_stop_before_the_headers_is_at_once(server: HostileServer) -> None:
    server.wire = {"POST": wire.silent}
    session = Session(OpenAIBackend(RunSpec(options=RemoteOptions(url=server.url)), read_timeout=600.0))
    session.start()
    wait_until(lambda: "POST /v1/chat/completions" in server.requests and deadline.oldest() is not None)
    started = time.monotonic()
    session.stop()
    stopped_in = time.monotonic() - started
    assert stopped_in < 0.5, f"stop took {stopped_in:.2f} s"
    drained = session.drain()
    assert drained.finished and drained.error is None  # a stop, not a failure


def test_what_is_waited_on_is_known_and_can_be_interrupted(server: HostileServer) -> None:
    server.wire = {"/v1/models": wire.silent}
    conn = Connection(server.url, None, None, Timeouts(request=600.0))
    failed: list[str] = []

    def listing() -> None:
        try:
            conn.served_models()
        except BackendError as exc:
            failed.append(str(exc))

    thread = threading.Thread(target=listing)
    thread.start()
    wait_until(lambda: deadline.oldest() is not None)
    flight = deadline.oldest()
    assert flight is not None and flight.root == server.root and str(flight.what) == "listing models (GET /v1/models)"
    conn.interrupt()
    thread.join(0.5)
    assert not thread.is_alive() and failed
    conn.close()
    assert deadline.oldest() is None
