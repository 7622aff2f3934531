"""Failures of the remote backend against small real servers on 127.0.0.1 (no mocked HTTP).

Each case must end in one clear BackendError, with no crash, and the rounds streamed before
the failure must still reach the consumer (Session.run_headless yields them first). The same
fake server also plays a vLLM (mode "vllm") to run detection, /metrics and grouping end to end.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from specview.backends.remote.backend import OpenAIBackend
from specview.backends.remote.options import RemoteOptions
from specview.boundary.api_key import ApiKey
from specview.kernel.backend import Note
from specview.kernel.errors import BackendError
from specview.kernel.events import Round, TokenStatus
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from tests.support.fake_openai import GOOD_CHUNKS, SECRET, FakeServer, running_fake

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeServer]:
    with running_fake() as server:
        yield server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(backend: OpenAIBackend) -> tuple[list[Round], str | None]:
    """Rounds Session.run_headless yielded, and the error that ended it."""
    got: list[Round] = []
    try:
        for rnd in Session(backend).run_headless():
            got.append(rnd)
    except BackendError as exc:
        return got, str(exc)
    return got, None


def test_a_healthy_stream_gives_plain_rounds(fake: FakeServer) -> None:
    fake.mode = "ok"
    backend = OpenAIBackend(RunSpec(max_tokens=16, options=RemoteOptions(url=fake.url)))
    assert backend.info.label == "generic · fake-model"
    assert backend.info.notes == (Note("no_spec"),) and backend.info.note == ""
    rounds, error = _run(backend)
    assert error is None
    assert [r.text for r in rounds] == [" word0", " word1", " word2"]
    assert all(t.status is TokenStatus.PLAIN for r in rounds for t in r.tokens)


def test_a_vllm_server_is_detected_and_grouped(fake: FakeServer) -> None:
    fake.mode = "vllm"
    backend = OpenAIBackend(RunSpec(options=RemoteOptions(url=fake.url)))
    assert backend.info.label == "vllm · fake-model" and backend.info.gamma == 3
    assert backend.info.exact["acceptance"] is False
    rounds, error = _run(backend)
    assert error is None
    statuses = [[t.status.value for t in r.tokens] for r in rounds]
    assert statuses == [["plain"], ["accepted", "corrected"], ["accepted", "accepted", "accepted", "bonus"]]
    assert all(t.inferred for r in rounds[1:] for t in r.tokens)
    assert backend.server_counters() is not None


def test_vllm_per_step_accepted_reconciles_the_rounds(fake: FakeServer) -> None:
    """The inferred grouping is replaced by the exact one once per_step_accepted arrives."""
    fake.mode = "vllm-detailed"
    backend = OpenAIBackend(RunSpec(options=RemoteOptions(url=fake.url)))
    assert backend.info.reconciles
    session = Session(backend)
    streamed = list(session.run_headless())
    assert [r.accepted for r in streamed] == [0, 1, 3]  # what the chunks suggested
    history = session.history
    statuses = [[t.status.value for t in r.tokens] for r in history]
    assert statuses == [["plain"], ["corrected"], ["corrected"], ["accepted", "accepted", "corrected"],
                        ["corrected"]]
    assert all(not t.inferred for r in history[1:] for t in r.tokens)
    assert "".join(r.text for r in history) == "".join(r.text for r in streamed)
    snap = session.metrics.snapshot()
    assert (snap.accepted, snap.rounds, snap.tokens) == (2, 5, 7)
    assert all(r.t_wall > 0 for r in history)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("close", "closed the connection in the middle of the stream"),
        ("malformed", "malformed stream line"),
        ("stall", "read timeout"),
    ],
)
def test_mid_stream_failures_keep_the_rounds_before_them(fake: FakeServer, mode: str, expected: str) -> None:
    fake.mode = mode
    backend = OpenAIBackend(RunSpec(max_tokens=16, options=RemoteOptions(url=fake.url)), read_timeout=1.0)
    started = time.monotonic()
    rounds, error = _run(backend)
    assert error is not None and expected in error, error
    assert "\n" not in error and "Traceback" not in error
    assert [r.text for r in rounds] == [" word0", " word1", " word2"]
    assert time.monotonic() - started < 4.0


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("401", "refused the API key (401: Invalid API Key)"),
        ("404", "404 while streaming the completion with model 'fake-model'"),
        ("500", "HTTP 500: CUDA out of memory"),
    ],
)
def test_http_errors_before_any_token(fake: FakeServer, mode: str, expected: str) -> None:
    fake.mode = mode
    # the key the user named (--api-key-env SPECVIEW_TEST_KEY): sent, and refused
    key = ApiKey(SECRET, named=True)
    backend = OpenAIBackend(RunSpec(api_key_env="SPECVIEW_TEST_KEY", api_key=key, options=RemoteOptions(url=fake.url)))
    rounds, error = _run(backend)
    assert rounds == []
    assert error is not None and expected in error, error
    assert SECRET not in error and SECRET not in repr(backend.info)
    if mode == "401":
        assert "$SPECVIEW_TEST_KEY" in error


def test_a_bad_key_on_the_model_list_fails_in_the_constructor(fake: FakeServer) -> None:
    fake.mode = "401-models"
    with pytest.raises(BackendError, match=r"refused the API key \(401") as caught:
        OpenAIBackend(RunSpec(api_key=ApiKey(SECRET, named=True), options=RemoteOptions(url=fake.url)))
    assert SECRET not in str(caught.value)
    # the ambient key is not sent to this server: the message says how to send one
    with pytest.raises(BackendError, match=r"wants an API key \(401.*--api-key-env OPENAI_API_KEY"):
        OpenAIBackend(RunSpec(api_key=ApiKey(SECRET, named=False), options=RemoteOptions(url=fake.url)))


def test_an_unknown_model_fails_in_the_constructor(fake: FakeServer) -> None:
    fake.mode = "ok"
    with pytest.raises(BackendError, match=r"does not know model 'nope' .*offers: 'fake-model'"):
        OpenAIBackend(RunSpec(options=RemoteOptions(url=fake.url, model="nope")))


def test_connection_refused() -> None:
    port = _free_port()
    with pytest.raises(BackendError, match=f"cannot connect to http://127.0.0.1:{port}"):
        OpenAIBackend(RunSpec(options=RemoteOptions(url=f"http://127.0.0.1:{port}/v1")))


def test_a_port_that_does_not_speak_http() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]

    def greet() -> None:
        conn, _ = listener.accept()
        conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
        conn.close()

    thread = threading.Thread(target=greet, daemon=True)
    thread.start()
    try:
        with pytest.raises(BackendError, match="did not speak HTTP"):
            OpenAIBackend(RunSpec(options=RemoteOptions(url=f"http://127.0.0.1:{port}")))
    finally:
        thread.join(2.0)
        listener.close()


def test_a_web_server_without_the_api(fake: FakeServer) -> None:
    fake.mode = "ok"
    with pytest.raises(BackendError, match="answered 404 while listing models"):
        OpenAIBackend(RunSpec(options=RemoteOptions(url=fake.url.removesuffix("/v1") + "/api")))


def test_stop_ends_the_stream_quietly(fake: FakeServer) -> None:
    fake.mode = "stall"
    backend = OpenAIBackend(RunSpec(options=RemoteOptions(url=fake.url)), read_timeout=3.0)
    stop = threading.Event()
    got = []
    for rnd in backend.rounds(stop):
        got.append(rnd)
        stop.set()  # the first item is a round: no baseline was given, so no calibration comes first
    backend.close()
    assert len(got) == 1


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return subprocess.run(
        [sys.executable, "-m", "specview", "bench", *args, "--json"],
        capture_output=True, text=True, timeout=60, cwd=ROOT, env=env,
    )


def test_a_recorded_vllm_run_replays_with_its_reconciled_rounds(fake: FakeServer, tmp_path: Path) -> None:

    from specview.backends.replay import ReplayBackend

    fake.mode = "vllm-detailed"
    file = tmp_path / "vllm.jsonl"
    live = _cli("--url", fake.url, "--record", str(file))
    assert live.returncode == 0, live.stderr
    kinds = [json.loads(line)["type"] for line in file.read_text().splitlines()]
    # the fake's /metrics never moves: the check of the exact rounds against it is recorded too
    assert kinds == ["header", "round", "round", "round", "reconcile", "check"]
    replayed = subprocess.run([sys.executable, "-m", "specview", "replay", str(file), "--json"],
                              capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert replayed.returncode == 0, replayed.stderr
    stats = json.loads(replayed.stdout)
    assert stats == json.loads(live.stdout)
    assert (stats["accepted"], stats["rounds"]) == (2, 5)  # the exact grouping, not the streamed one
    backend = ReplayBackend(file)
    assert backend.info.reconciles
    session = Session(backend)
    list(session.run_headless())
    assert [[t.status.value for t in r.tokens] for r in session.history][1:3] == [["corrected"], ["corrected"]]


def test_the_cli_exits_2_with_one_line(fake: FakeServer) -> None:
    refused = _cli("--url", f"http://127.0.0.1:{_free_port()}/v1")
    fake.mode = "500"
    failed = _cli("--url", fake.url)
    for result in (refused, failed):
        assert result.returncode == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("specview: error: "), result.stderr
        assert "Traceback" not in result.stderr
    assert "cannot connect" in refused.stderr
    assert "HTTP 500" in failed.stderr


async def test_the_live_view_redraws_reconciled_rounds(fake: FakeServer) -> None:
    from specview.features.live.app import SpecviewApp
    from tests.support.app_helpers import token_view, wait_finished, wait_until

    fake.mode = "vllm-detailed"
    spec = RunSpec(options=RemoteOptions(url=fake.url))
    app = SpecviewApp(spec, OpenAIBackend(spec))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_finished(pilot)
        exact = ["plain", "corrected", "corrected", "accepted", "accepted", "corrected", "corrected"]
        # the exact rounds replaced the inferred ones on screen
        await wait_until(pilot, lambda: [t.status.value for t in token_view(app).tokens] == exact)
        assert not any(t.inferred for t in token_view(app).tokens)
        assert app.live.session.metrics.snapshot().accepted == 2


def test_stopping_a_stalled_stream_closes_it_at_once(fake: FakeServer) -> None:
    """The stop closes the connection first (a read blocked for 60 s would hold `q` that long)."""
    fake.mode = "stall"
    fake.release.clear()
    session = Session(OpenAIBackend(RunSpec(options=RemoteOptions(url=fake.url)), read_timeout=60.0))
    session.start()
    deadline = time.monotonic() + 20
    while session.produced < GOOD_CHUNKS and time.monotonic() < deadline:
        time.sleep(0.02)
    assert session.produced == GOOD_CHUNKS  # the stream now stalls
    started = time.monotonic()
    session.stop()
    stopped_in = time.monotonic() - started
    fake.release.set()
    assert stopped_in < 0.5, f"stop took {stopped_in:.2f} s"
    drained = session.drain()
    assert drained.finished and drained.error is None  # a stop, not a failure
