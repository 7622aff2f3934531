"""`sweep load` against servers that report no per-request draft counts: it falls back to the
speculative counters of /metrics (vLLM's names), and says so when there are none."""

from __future__ import annotations

import json

import pytest

from specview.cli import main
from tests.support.load_server import CountingServer, counting


def sweep(on: CountingServer, off: CountingServer, *extra: str) -> list[str]:
    return ["sweep", "load", "--on", on.url, "--off", off.url, "--concurrency", "1,2", "--requests", "2",
            "--max-tokens", "8", *extra]


def test_drafts_come_from_the_metrics_counters(capsys: pytest.CaptureFixture[str]) -> None:
    with counting(10, 7) as on, counting(0) as off:
        assert main(sweep(on, off, "--repeats", "2", "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert not data["notes"]
    # level 1: 2 repeats × 1 client × 2 requests; level 2: 2 × 2 × 2 (the warm-up is outside)
    assert [(p["on_drafted"], p["on_accepted"], p["off_drafted"]) for p in data["points"]] == [(40, 28, 0),
                                                                                              (80, 56, 0)]


def test_an_off_server_that_drafts_by_its_metrics_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with counting(10, 7) as on, counting(4, 1) as off, pytest.raises(SystemExit) as exit_:
        main(sweep(on, off, "--repeats", "2", "--json"))
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the --off server" in err[0]
    assert "drafted 16 tokens (4 accepted) at concurrency 1" in err[0]


def test_without_counts_the_sweep_says_it_could_not_check(capsys: pytest.CaptureFixture[str]) -> None:
    with counting(10, 7, metrics=False) as on, counting(0, metrics=False) as off:
        assert main(sweep(on, off, "--repeats", "2")) == 0
    out = capsys.readouterr().out
    assert f"could not check whether the --on server {on.url.removesuffix('/v1')} drafted" in out
    assert "could not check whether the --off server" in out
