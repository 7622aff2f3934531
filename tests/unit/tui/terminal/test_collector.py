"""The collector's thresholds are raised for a screen that allocates thousands of objects a frame,
and never lowered where a caller raised them further."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from specview.tui.terminal.collector import THRESHOLDS, tune_collector


@pytest.fixture(autouse=True)
def thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def test_the_defaults_are_raised() -> None:
    gc.set_threshold(700, 10, 10)
    tune_collector()
    assert gc.get_threshold() == THRESHOLDS


def test_a_higher_threshold_is_kept() -> None:
    gc.set_threshold(50_000, 5, 100)
    tune_collector()
    assert gc.get_threshold() == (50_000, THRESHOLDS[1], 100)
