"""The one poller: cadence, bounded polls, errors as data, a stop that does not wait."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from specview.kernel.errors import BackendError, SpecviewError
from specview.kernel.poller import Poller


def test_polls_on_its_cadence_at_most_max_polls_times() -> None:
    starts: list[float] = []
    got: list[object] = []
    poller: Poller[int] = Poller(lambda: starts.append(time.monotonic()) or len(starts), got.append, 0.05,
                                 max_polls=4)
    poller.run()
    assert got == [1, 2, 3, 4] and poller.polls == 4
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert all(g >= 0.05 - 1e-3 for g in gaps), gaps  # never two polls less than an interval apart


def test_a_late_poll_is_followed_by_one_an_interval_after_it_began_not_a_burst() -> None:
    starts: list[float] = []

    def slow() -> None:
        starts.append(time.monotonic())
        if len(starts) == 1:
            time.sleep(0.3)  # the poll itself (a slow server), six intervals long

    Poller(slow, lambda _: None, 0.05, max_polls=3).run()
    assert starts[2] - starts[1] >= 0.05 - 1e-3  # the 2nd began at once; the 3rd waited its interval


def test_errors_are_handed_over_as_data_and_can_end_the_loop() -> None:
    got: list[object] = []
    calls = iter([1, BackendError("down"), 3])

    def poll() -> int:
        value = next(calls)
        if isinstance(value, SpecviewError):
            raise value
        return value

    Poller(poll, got.append, 0.01, max_polls=3).run()
    assert got[0] == 1 and isinstance(got[1], BackendError) and got[2] == 3
    got.clear()
    calls = iter([1, BackendError("down"), 3])
    Poller(poll, got.append, 0.01, stop_on_error=True).run()
    assert len(got) == 2 and isinstance(got[1], BackendError)


def test_stop_wakes_the_wait_and_interrupts_the_poll_in_flight() -> None:
    release = threading.Event()
    interrupted = threading.Event()
    got: list[object] = []

    def stuck() -> str:
        release.wait(10)
        return "late"

    def interrupt() -> None:
        interrupted.set()
        release.set()

    poller: Poller[str] = Poller(stuck, got.append, 60.0, interrupt=interrupt)
    poller.start()
    deadline = time.monotonic() + 5
    while poller.in_flight_since is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert poller.in_flight_since is not None
    began = time.monotonic()
    poller.stop(wait=5.0)
    assert time.monotonic() - began < 1.0 and interrupted.is_set()
    assert got == []  # a poll cut short by stopping is nobody's answer


def test_a_stop_during_the_wait_ends_the_loop_at_once() -> None:
    poller: Poller[int] = Poller(lambda: 1, lambda _: None, 60.0)
    poller.start()
    deadline = time.monotonic() + 5
    while poller.polls < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    began = time.monotonic()
    poller.stop(wait=5.0)
    assert time.monotonic() - began < 1.0 and poller.polls == 1


def test_paused_polls_are_skipped_until_resumed() -> None:
    got: list[int] = []
    poller: Poller[int] = Poller(lambda: len(got) + 1, got.append, 0.02, max_polls=2)
    poller.pause()
    poller.start()
    time.sleep(0.15)  # a fixed span on purpose: several slots pass, and none may poll
    assert got == [] and poller.paused
    poller.resume()
    deadline = time.monotonic() + 5
    while len(got) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert got == [1, 2]


def test_the_interval_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Poller(lambda: 1, lambda _: None, 0.0)
