"""pytest's private names the test harness relies on, all of them, listed in `PRIVATE`
(tests/unit/compat/test_pytest_compat.py checks each on a running test and fails naming it).

pytest has no public read, at collection time, of what a test's fixtures resolved to (their scopes
decide which tests pytest-xdist keeps in one worker: tests/conftest.py). Without it every test is
scheduled on its own, which is slower where fixtures start servers, never wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from specview.compat import Private

PRIVATE = (
    Private("_pytest.python:Function", "_fixtureinfo", "the fixtures a test resolved to: fixture_definitions",
            instance=True),
)


def fixture_definitions(item: pytest.Item) -> dict[str, Sequence[Any]] | None:
    """What each fixture of `item` resolved to, by name (the definition the test gets last), or None
    where pytest keeps it elsewhere (or the item is no function)."""
    info = getattr(item, "_fixtureinfo", None)
    return None if info is None else dict(info.name2fixturedefs)
