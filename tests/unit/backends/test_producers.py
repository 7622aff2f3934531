"""Flat-out producers: the child-process simulator, token-counted back-pressure, and the view's layout."""

from __future__ import annotations

import itertools
import os
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specview.backends.process import ChildProcessBackend, offload
from specview.backends.sim.backend import SimBackend
from specview.boundary.secrets import add_secret, forget_secrets
from specview.catalog.presets import get_preset
from specview.kernel.errors import BackendError
from specview.kernel.events import Calibration, Round, TokenEvent, TokenStatus
from specview.kernel.session import Session
from specview.widgets.token_layout import TokenLayout


def sim(speed: float = 0.0, max_rounds: int | None = None, preset: str = "glm-5.2-mtp") -> SimBackend:
    return SimBackend(get_preset(preset), seed=9, speed=speed, max_rounds=max_rounds)


def producer_children() -> list[int]:
    """This process's live children that run the producer module (Linux /proc)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
                stat = (proc / "stat").read_text()
            except OSError:
                continue
            parent, state = int(stat.rsplit(")", 1)[1].split()[1]), stat.rsplit(")", 1)[1].split()[0]
            if b"specview.backends.process" in cmdline and parent == os.getpid() and state != "Z":
                pids.append(int(proc.name))
    return pids


def test_only_flat_out_simulators_move_to_a_child_process() -> None:
    assert isinstance(offload(sim(speed=0.0)), ChildProcessBackend)
    paced = sim(speed=1.0)
    assert offload(paced) is paced


def test_child_process_rounds_equal_the_same_run_on_a_thread() -> None:
    here = list(sim(max_rounds=300).rounds(threading.Event()))
    there = list(ChildProcessBackend(sim(max_rounds=300)).rounds(threading.Event()))
    assert len(there) == 301 and isinstance(there[0], Calibration)  # the preset's assumed costs, then 300 rounds
    assert there == here


def test_stopping_ends_the_child_process() -> None:
    stop = threading.Event()
    rounds = ChildProcessBackend(sim()).rounds(stop)
    first = [r for r in itertools.islice(rounds, 51) if isinstance(r, Round)]
    assert [r.index for r in first] == list(range(50))
    assert producer_children(), "the producer runs in its own process"
    stop.set()
    t0 = time.monotonic()
    rounds.close()
    assert time.monotonic() - t0 < 3.0
    assert producer_children() == []


def test_a_failure_in_the_child_reaches_the_user_as_one_message() -> None:
    broken = sim()
    broken.lang = "xx"  # no such passage: the child fails when it starts producing
    with pytest.raises(BackendError, match="FileNotFoundError"):
        list(ChildProcessBackend(broken).rounds(threading.Event()))
    session = Session(offload(broken))
    session.start()
    deadline = time.monotonic() + 10
    while not session.drain(limit=0).finished and time.monotonic() < deadline:
        time.sleep(0.05)
    drained = session.drain()
    assert drained.finished and drained.error and "FileNotFoundError" in str(drained.error)


def _round(index: int, n_tokens: int) -> Round:
    tokens = tuple(TokenEvent(i, "x", TokenStatus.ACCEPTED) for i in range(n_tokens))
    return Round(index, n_tokens, tokens, 0.0, 0.0, float(index))


class _Burst:
    """A backend that yields rounds of a fixed size as fast as it is allowed to."""

    def __init__(self, size: int) -> None:
        from specview.kernel.backend import BackendInfo

        self.size = size
        self.info = BackendInfo(backend="test", label="burst", gamma=size, temperature=0.0, virtual_clock=True)

    def rounds(self, stop: threading.Event):  # type: ignore[no-untyped-def]
        for i in itertools.count():
            if stop.is_set():
                return
            yield _round(i, self.size)

    def close(self) -> None:
        pass


def _until(condition: object, timeout: float = 5.0) -> bool:
    """Poll `condition()` until it holds or `timeout` seconds pass; whether it held."""
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(condition())


@pytest.mark.parametrize("size", [2, 8])
def test_look_ahead_is_counted_in_tokens_not_rounds(size: int) -> None:
    session = Session(_Burst(size), buffer_tokens=64)
    session.start()
    try:
        # the producer comes to wait for room: one that ignored the bound would never wait
        assert _until(lambda: session.backed_up) and session.produced == 64 // size
        got = session.drain()
        assert sum(len(r.tokens) for r in got.rounds) == 64
    finally:
        session.stop()


def test_a_paused_session_parks_and_a_step_lets_exactly_one_round_through() -> None:
    session = Session(_Burst(2))
    session.pause()  # paused before the first round: nothing comes until a step
    session.start()
    try:
        assert _until(lambda: session.parked) and session.produced == 0
        session.step()
        assert not session.parked  # a step is owed: the run is not still
        assert _until(lambda: session.parked) and session.produced == 1
        session.resume()
        assert not session.parked
        assert _until(lambda: session.produced > 1)
    finally:
        session.stop()


class _Texts:
    """A backend whose rounds carry the given texts, one token each, then nothing more."""

    def __init__(self, texts: list[str]) -> None:
        from specview.kernel.backend import BackendInfo

        self.texts = texts
        self.info = BackendInfo(backend="test", label="texts", gamma=1, temperature=0.0, virtual_clock=True)

    def rounds(self, stop: threading.Event):  # type: ignore[no-untyped-def]
        for i, text in enumerate(self.texts):
            yield Round(i, 1, (TokenEvent(0, text, TokenStatus.BONUS, 0),), 0.001, 0.002, float(i + 1))

    def close(self) -> None:
        pass


def test_a_step_shows_a_round_even_when_the_mask_holds_one_back() -> None:
    """A round whose text may begin a secret is held until the next one: the step goes on to it,
    so the step shows a round (it used to show nothing, and the step was spent)."""
    forget_secrets()
    add_secret("sk-very-secret-key-123")
    try:
        session = Session(_Texts(["hello", " sk", "-and then", " more", " text"]))
        session.pause()
        session.start()
        assert _until(lambda: session.parked)
        session.step()
        assert _until(lambda: session.parked) and session.produced == 1
        session.step()  # " sk" may begin the secret: held, and " -and then" comes with it
        assert _until(lambda: session.parked) and session.produced == 3
        assert [r.index for r in session.drain().rounds] == [0, 1, 2]
    finally:
        session.stop()
        forget_secrets()


def _events(texts: list[str]) -> list[TokenEvent]:
    statuses = itertools.cycle(list(TokenStatus))
    return [TokenEvent(i, t, next(statuses)) for i, t in enumerate(texts)]


token_texts = st.lists(st.sampled_from(["the", " lamp", " 灯塔", "\n", "a\nb", "", " supercalifragilistic", "。", "x"]),
                       max_size=120)


@settings(max_examples=60, deadline=None)
@given(texts=token_texts, width=st.integers(1, 30), chunk=st.integers(1, 17))
def test_appending_in_chunks_wraps_like_laying_out_at_once(texts: list[str], width: int, chunk: int) -> None:
    events = _events(texts)
    once = TokenLayout(width)
    once.rewrap(width)
    once.append(events)
    chunked = TokenLayout(width)
    for i in range(0, len(events), chunk):
        chunked.append(events[i : i + chunk])
    again = TokenLayout(width)
    again.append(events)
    again.rewrap(width)  # the slow path (every token through the general placer)
    assert chunked.lines == once.lines == again.lines
    assert chunked.token_line == once.token_line == again.token_line


@settings(max_examples=60, deadline=None)
@given(texts=token_texts, width=st.integers(2, 30), keep=st.integers(0, 80))
def test_pruning_drops_whole_lines_and_keeps_the_rest_as_drawn(texts: list[str], width: int, keep: int) -> None:
    layout = TokenLayout(width)
    layout.append(_events(texts))
    before = {y: line for y, line in enumerate(layout.lines)}
    dropped = layout.prune(keep)
    assert layout.lines == [before[y] for y in range(dropped, len(before))]
    if dropped:
        assert len(layout.tokens) <= len(texts)
        assert layout.base == len(texts) - len(layout.tokens)
    # every piece still points at a token that is kept, and texts line up with tokens
    for line in layout.lines:
        for token, start, end in line:
            assert 0 <= token - layout.base < len(layout.tokens)
            assert 0 <= start <= end <= len(layout.texts[token - layout.base])


def test_a_killed_child_process_is_reported_not_hung() -> None:
    import signal

    stop = threading.Event()
    rounds = ChildProcessBackend(sim()).rounds(stop)
    next(rounds)
    for pid in producer_children():
        os.kill(pid, signal.SIGKILL)
    with pytest.raises(BackendError, match=r"ended unexpectedly \(exit code -9\)"):
        for _ in rounds:  # what was already in the pipe, then the end of it
            pass
    assert producer_children() == []


def test_a_child_that_cannot_start_says_why() -> None:
    # The child cannot import this test module, so it cannot unpickle the backend.
    with pytest.raises(BackendError, match=r"exit code 1\): ModuleNotFoundError: No module named 'test_producers'"):
        list(ChildProcessBackend(_Burst(2)).rounds(threading.Event()))  # type: ignore[arg-type]


def test_a_child_that_ends_in_the_middle_of_a_message_is_reported_as_ended() -> None:
    """A child killed while it writes a message leaves half of one in the pipe: that is the child's
    end (its exit code), not the pipe's OSError."""
    import subprocess
    import sys

    from specview.backends.process import _receive

    half = ("import os, struct, sys; sys.stdin.buffer.read(); "
            "os.write(1, struct.pack('!i', 1000) + b'x' * 10); sys.exit(3)")  # 10 bytes of 1000
    child = subprocess.Popen([sys.executable, "-c", half], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    with open(os.devnull, "w+b") as errors, pytest.raises(BackendError, match=r"ended unexpectedly \(exit code 3\)"):
        list(_receive(child, sim(), errors, threading.Event()))
