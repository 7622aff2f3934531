"""A remote run's speedup needs a baseline: given (--baseline-tps), paired (bench --baseline-url), or none."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from specview.backends.remote.backend import OpenAIBackend
from specview.backends.remote.options import RemoteOptions
from specview.kernel.events import Calibration
from specview.kernel.overlay import overlay
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from tests.support.fake_openai import running_fake

ROOT = Path(__file__).resolve().parents[2]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "specview", "bench", *args, "--json"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT, stdin=subprocess.DEVNULL)


def test_without_a_baseline_a_remote_speedup_is_not_shown() -> None:
    with running_fake("vllm") as server:
        session = Session(OpenAIBackend(RunSpec(options=RemoteOptions(url=server.url))))
        list(session.run_headless())
    over = overlay(session.metrics.snapshot())
    assert over.speedup_basis is None and over.speedup_measured is None


def test_a_given_baseline_comes_first_and_divides_the_runs_tokens_per_second() -> None:
    with running_fake("vllm") as server:
        backend = OpenAIBackend(RunSpec(options=RemoteOptions(url=server.url, baseline_tps=40.0)))
        items = list(backend.rounds(threading.Event()))
        assert items[0] == Calibration("given", 1 / 40.0)
        session = Session(OpenAIBackend(RunSpec(options=RemoteOptions(url=server.url, baseline_tps=40.0))))
        list(session.run_headless())
    snap = session.metrics.snapshot()
    over = overlay(snap)
    assert over.speedup_basis == "given" and snap.tokens_per_second is not None
    assert over.speedup_measured == pytest.approx(snap.tokens_per_second / 40.0)


def test_bench_pairs_a_remote_run_with_a_plain_one() -> None:
    with running_fake("vllm") as spec_server, running_fake("ok") as plain_server:
        out = bench("--url", spec_server.url, "--baseline-url", plain_server.url)
        assert out.returncode == 0, out.stderr
        lines = [json.loads(line) for line in out.stdout.splitlines()]
        assert len(lines) == 1  # the plain run is the baseline, not a result of its own
        stats = lines[0]
        assert stats["provenance"]["speedup_basis"] == "paired"
        assert stats["plain_tokens_per_second"] and stats["speedup"] == pytest.approx(
            stats["tokens_per_second"] / stats["plain_tokens_per_second"], rel=5e-3)
        # a "baseline" that drafts is no plain baseline
        refused = bench("--url", plain_server.url, "--baseline-url", spec_server.url)
        assert refused.returncode == 2 and "drafted" in refused.stderr and "Traceback" not in refused.stderr
        given = bench("--url", spec_server.url, "--baseline-tps", "25")
        assert given.returncode == 0, given.stderr
        assert json.loads(given.stdout)["provenance"]["speedup_basis"] == "given"
    sim = bench("--baseline-url", "http://127.0.0.1:9/v1")
    assert sim.returncode == 2 and "--baseline-url" in sim.stderr


async def test_the_live_view_says_no_baseline_instead_of_a_speedup() -> None:
    from specview.features.live.app import SpecviewApp
    from specview.widgets.stat_gauge import StatGauge
    from tests.support.app_helpers import wait_finished, wait_until

    with running_fake("vllm") as server:
        spec = RunSpec(options=RemoteOptions(url=server.url))
        app = SpecviewApp(spec, OpenAIBackend(spec))
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_finished(pilot)
            gauge = app.live.query_one("#g-speedup", StatGauge)
            await wait_until(pilot, lambda: gauge.note.startswith("no baseline"))  # the run's numbers drawn
            assert gauge.value.strip() == "—" and gauge.note.startswith("no baseline")
            # v is "—" with the reason, never an assumed 1.00 (issue 25)
            verify = app.live.query_one("#g-verify_ratio", StatGauge)
            assert verify.value.strip() == "—" and verify.note == "a remote server does not time its forwards"
