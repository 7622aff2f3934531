"""A fleet member that sends escapes: in its method, in its error page. The fleet's lines, JSON
and CSV show them sanitized; nothing raw reaches the terminal."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.exporter import PROPS, Exporter, exporters
from tests.support.hostile_checks import assert_terminal_clean
from tests.support.limited_run import base_env, run_cli

EVIL = "\x1b]0;owned\x07\x1b[2J\x9b31m"


@pytest.fixture
def fleet() -> Iterator[tuple[Exporter, Exporter]]:
    stop = threading.Event()
    with exporters(2) as (good, evil):
        evil.props = {**PROPS, "default_generation_settings": {"params": {"speculative.types": f"draft{EVIL}"}}}

        def load() -> None:
            while not stop.wait(0.02):
                good.advance(10, (8, 6, 4), running=1)
                evil.advance(10, (8, 6, 4), running=1)

        thread = threading.Thread(target=load, daemon=True)
        thread.start()
        yield good, evil
        stop.set()
        thread.join()


@pytest.mark.parametrize("output", [(), ("--json",), ("--csv",)])
def test_escapes_from_a_member_never_reach_the_terminal(fleet: tuple[Exporter, Exporter], tmp_path: Path,
                                                        output: tuple[str, ...]) -> None:
    good, evil = fleet
    run = run_cli(["watch", "--url", good.root, "--url", evil.root, "-d", "0.3", "--count", "2", *output],
                  base_env(tmp_path), timeout=60)
    assert run.returncode == 0 and not run.timed_out, run.err
    assert_terminal_clean(run.stdout + run.stderr)
    assert "\x9b" not in run.out  # the C1 CSI as a character (its byte occurs inside UTF-8)
    evil.mode = "error"
    evil.error_body = f"<h1>{EVIL * 1000}</h1>".encode()
    run = run_cli(["watch", "--url", good.root, "--url", evil.root, "-d", "0.3", "--once", *output],
                  base_env(tmp_path), timeout=60)
    assert run.returncode == 0 and not run.timed_out, run.err
    assert_terminal_clean(run.stdout + run.stderr)
    assert len(run.stdout) < 20_000  # the error page is cut, not copied
    if output == ("--json",):
        (record,) = [json.loads(line) for line in run.out.splitlines()]
        assert record["instances"][1]["state"] == "down" and "500" in record["instances"][1]["error"]
