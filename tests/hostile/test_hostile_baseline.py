"""A baseline that lies or is no baseline (`watch --baseline`): a plain server whose running gauge is
impossible and whose tokens counter runs backwards, one that answers HTML, and a file of junk.
Each is a real HTTP server or a real file; `specview watch` runs as a child under memory and time
limits. Nothing is compared on a number that failed its check; what cannot be used is one line
naming it, exit 2."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.exporter import exporters, nobody_url
from tests.support.hostile_checks import json_lines
from tests.support.hostile_server import HostileServer, Scenario, hostile_server
from tests.support.limited_run import base_env, run_cli

LLAMA_MODELS = [{"id": "m", "owned_by": "llamacpp"}]
PROPS = b'{"build_info": "b1", "default_generation_settings": {"params": {}}}'


@pytest.fixture
def lying_plain() -> Iterator[HostileServer]:
    """A llama-server look-alike whose gauge says 10^12 requests run and whose tokens go backwards."""
    with hostile_server() as server:
        server.scenario = Scenario(models=LLAMA_MODELS, get={
            "/props": (200, "application/json", PROPS), "/slots": (200, "application/json", b"[]"),
            "/metrics": (200, "text/plain", b"llamacpp:tokens_predicted_total 5000\n"
                                            b"llamacpp:requests_processing 1e12\n")})
        yield server


def test_a_plain_server_whose_numbers_fail_their_checks_is_compared_on_nothing(
        lying_plain: HostileServer, tmp_path: Path) -> None:
    with exporters(1) as (spec,):
        stop = threading.Event()

        def busy() -> None:  # the watched server drafts with one request running
            while not stop.wait(0.05):
                spec.advance(4, (3, 2, 1), running=1)

        thread = threading.Thread(target=busy, daemon=True)
        thread.start()
        try:
            run = run_cli(["watch", "--url", spec.root, "--baseline", lying_plain.root, "--json", "--count", "4",
                           "-d", "0.2"], base_env(tmp_path), timeout=60)
        finally:
            stop.set()
            thread.join()
    assert not run.timed_out and run.returncode == 0, run.err
    by_load = json_lines(run.stdout)[-1]["by_load"]
    assert isinstance(by_load, dict) and by_load["baseline"]["levels"] == []  # 10^12 running: no level
    assert by_load["baseline"]["unusable"] >= 2  # every window after the first read, not placed
    assert by_load["crossover"]["state"] == "no_common_level" and by_load["crossover"]["levels"] == []


def test_a_baseline_server_answering_html_is_counted_as_unusable_reads_and_said(tmp_path: Path) -> None:
    with exporters(1) as (spec,), hostile_server() as html:
        html.scenario = Scenario(get={"/metrics": (200, "text/html", b"<html>" + b"x" * 100_000),
                                      "/v1/models": (200, "text/html", b"<html>no</html>")})
        run = run_cli(["watch", "--url", spec.root, "--baseline", html.root, "--json", "--count", "3", "-d", "0.2"],
                      base_env(tmp_path), timeout=60)
        assert not run.timed_out and run.returncode == 0, run.err
        baseline = json_lines(run.stdout)[-1]["by_load"]["baseline"]  # type: ignore[index]
        assert baseline["unusable"] >= 2 and baseline["levels"] == [], baseline  # no gauge in any read
        words = run_cli(["watch", "--url", spec.root, "--baseline", html.root, "--count", "3", "-d", "0.2",
                         "--lang", "en"], base_env(tmp_path), timeout=60)
    assert f"baseline measured: {html.root} · " in words.out and "of its reads unusable" in words.out, words.out


def test_a_junk_baseline_file_is_one_line_naming_it_and_exit_2(tmp_path: Path) -> None:
    junk = tmp_path / "junk.json"
    junk.write_bytes(b"[" * 100_000)  # nested past any parser's depth
    with exporters(1) as (spec,):
        run = run_cli(["watch", "--url", spec.root, "--baseline", str(junk), "--json", "--count", "2"],
                      base_env(tmp_path), timeout=60)
    assert not run.timed_out and run.returncode == 2, (run.out, run.err)
    said = [line for line in run.err.splitlines() if line.strip()]
    assert len(said) == 1 and "junk.json" in said[0] and "not a load sweep" in said[0], said


def test_a_baseline_server_nobody_answers_at_the_start_is_one_line_and_exit_2(tmp_path: Path) -> None:
    gone = nobody_url()
    with exporters(1) as (spec,):
        run = run_cli(["watch", "--url", spec.root, "--baseline", gone, "--count", "1"], base_env(tmp_path), timeout=60)
    assert not run.timed_out and run.returncode == 2, (run.out, run.err)
    said = [line for line in run.err.splitlines() if line.strip()]
    assert len(said) == 1 and gone in said[0], said
