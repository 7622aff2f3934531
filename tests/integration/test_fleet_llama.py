"""A fleet of two real llama-servers watched by `specview watch --json`; one is stopped mid-test.

Both run the tiny MTP model (llama-server's draft-mtp path, synthetic acceptance rates that
differ). The watch runs as a user runs it (a child process, one JSON object per poll, read as
the lines come). Stopping one server turns its row "down" within two polls and raises the
`down` alert; starting it again on the same port brings the row back up and clears the alert.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.limited_run import ROOT, base_env
from tests.support.llama_server import free_port, llama_server, server_binary
from tests.support.mtp_gguf import write_tiny_mtp
from tests.support.processes import stop

pytestmark = pytest.mark.skipif(server_binary() is None, reason="llama-server not built (make llama-server)")

INTERVAL = 0.5
MTP = ("--spec-type", "draft-mtp", "--spec-draft-n-max", "3")
RATES_A = ("--spec-synth-rates", "0.9,0.7,0.5")
RATES_B = ("--spec-synth-rates", "0.5,0.3,0.1")
WAIT_S = 60.0  # for a condition on a busy 2-core machine; each is met in a few polls when all is well


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_mtp(tmp_path_factory.mktemp("fleet") / "tiny-mtp.gguf")


class Watching:
    """`specview watch … --json` in a child process; its records as they arrive."""

    def __init__(self, args: list[str], home: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "specview", "watch", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=base_env(home), cwd=ROOT)
        self.records: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.records.put(json.loads(line))

    def until(self, condition: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        """The first record from now on that meets `condition` (fails after WAIT_S)."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            try:
                record = self.records.get(timeout=1.0)
            except queue.Empty:
                assert self.proc.poll() is None, self.proc.stderr.read().decode() if self.proc.stderr else ""
                continue
            self.seen.append(record)
            if condition(record):
                return record
        raise AssertionError(f"no poll showed {what} within {WAIT_S:g} s; the last: {self.seen[-1:]}")

    def close(self) -> str:
        stop(self.proc)
        return self.proc.stderr.read().decode() if self.proc.stderr else ""


def row(record: dict[str, Any], root: str) -> dict[str, Any]:
    (found,) = [r for r in record["instances"] if r["instance"] == root]
    return found


def complete(root: str) -> None:
    """One short completion, so the server has drafted (and names its method in /slots)."""
    reply = httpx.post(f"{root}/v1/completions", json={"prompt": "the cat sat on", "max_tokens": 24,
                                                       "temperature": 0.0}, timeout=60.0)
    reply.raise_for_status()


def test_a_server_stopped_mid_watch_is_down_within_two_polls_and_back_when_restarted(
        model_path: Path, tmp_path: Path) -> None:
    port_b = free_port()
    with llama_server((*MTP, *RATES_A), model=str(model_path)) as server_a, ExitStack() as running_b:
        server_b = running_b.enter_context(llama_server((*MTP, *RATES_B), model=str(model_path), port=port_b))
        a, b = server_a.root, server_b.root
        complete(a)
        complete(b)
        watching = Watching(["--url", a, "--url", b, "-d", str(INTERVAL), "--json", "--retention", "60"], tmp_path)
        try:
            first = watching.until(lambda r: all(x["state"] == "up" for x in r["instances"]), "both up")
            assert [x["engine"] for x in first["instances"]] == ["llama-server", "llama-server"]
            assert {x["method"] for x in first["instances"]} == {"MTP (draft-mtp)"}
            assert first["totals"]["up"] == 2 and first["window_s"] >= INTERVAL - 0.05

            running_b.close()  # b's process is stopped (SIGTERM, then waited for); a goes on
            stopped_at = time.time()
            down = watching.until(lambda r: row(r, b)["state"] == "down", "b down")
            polls_after = [r for r in watching.seen if r["unix_time"] >= stopped_at]
            assert len(polls_after) <= 2, [(r["unix_time"], row(r, b)["state"]) for r in polls_after]
            b_row = row(down, b)
            assert [al["kind"] for al in b_row["alerts"]] == ["down"] and b_row["error"]
            assert row(down, a)["state"] == "up" and row(down, a)["alerts"] == []
            assert down["totals"]["up"] == 1 and down["totals"]["instances"] == 2

            # started again on the same port: up, and the alert gone
            with llama_server((*MTP, *RATES_B), model=str(model_path), port=port_b):
                back = watching.until(lambda r: row(r, b)["state"] == "up", "b up again")
                assert row(back, b)["alerts"] == [] and back["totals"]["up"] == 2
                assert not any(al["kind"] == "down" for x in back["instances"] for al in x["alerts"])
        finally:
            err = watching.close()
    assert "Traceback" not in err, err
