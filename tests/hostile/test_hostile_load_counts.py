"""`sweep load` given draft counts that cannot be: one clean line, exit 2, nothing raw on stderr."""

from __future__ import annotations

from typing import Any

import pytest

from specview.cli import main
from tests.support.load_server import counting


@pytest.mark.parametrize(("timings", "said"), [
    ({"draft_n": "\x1b[2Jabc"}, "timings.draft_n is"),
    ({"draft_n": -5}, "timings.draft_n is -5"),
    ({"draft_n": 3, "draft_n_accepted": 9}, "timings.draft_n_accepted (9) is larger than timings.draft_n (3)"),
    ({"draft_n": 1e300}, "timings.draft_n is"),
])
def test_bad_draft_counts_are_one_line(timings: dict[str, Any], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with counting(0, timings=timings) as on, counting(0) as off, pytest.raises(SystemExit) as exit_:
        main(["sweep", "load", "--on", on.url, "--off", off.url, "--concurrency", "1", "--requests", "1",
              "--max-tokens", "4", "--repeats", "2", "--json"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("specview: error: ") and said in err[0], err
    assert "\x1b" not in err[0] and "Traceback" not in err[0]
