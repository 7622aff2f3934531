"""Each of pytest's private names the test harness relies on (tests/support/pytest_compat.py) is still
where the installed pytest keeps it: a release that moves one fails here, naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from specview.compat import Private
from tests.support.private_names import release
from tests.support.pytest_compat import PRIVATE, fixture_definitions


@pytest.mark.parametrize("private", PRIVATE, ids=lambda private: private.dotted)
def test_pytest_still_has(private: Private, request: pytest.FixtureRequest) -> None:
    assert hasattr(request.node, private.name), (f"{private.dotted} is gone from {release('pytest')}: the tests "
                                                 f"relied on it for {private.why} (tests/support/pytest_compat.py)")


def test_a_test_s_fixtures_are_read_with_their_scopes(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    found = fixture_definitions(request.node)
    assert found is not None and {"tmp_path", "tmp_path_factory"} <= set(found)
    assert found["tmp_path_factory"][-1].scope == "session"
