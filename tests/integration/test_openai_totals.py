"""End-of-request totals and the /metrics cross-check, end to end against small real servers on
127.0.0.1 that answer like SGLang and llama-server (tests/support/fake_engines.py): `specview bench --json`
in a child process, its recording replayed, and the side panel's note text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from specview.backends.remote.backend import OpenAIBackend
from specview.backends.remote.options import RemoteOptions
from specview.features.live.run_text import notes_text
from specview.kernel.langs import LANGS
from specview.kernel.runspec import RunSpec
from specview.kernel.session import Session
from specview.texts.catalog import fill
from tests.support.fake_engines import SGLANG_CHUNKS, running_engine

ENV = {**os.environ, "NO_COLOR": "1"}


def cli_json(*args: str) -> dict[str, Any]:
    run = subprocess.run([sys.executable, "-m", "specview", *args, "--json"], capture_output=True, text=True,
                         timeout=120, env=ENV, stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr
    (line,) = run.stdout.splitlines()
    stats: dict[str, Any] = json.loads(line)
    return stats


SGLANG_TOTALS = {"source": "sglext.spec_tokens_details", "drafted": 15, "accepted": 5, "per_position": [3, 2, 0],
                 "verify_steps": 5, "tokens": 11, "requests": 1, "exact": ["acceptance", "per_position", "tau"]}


def test_sglang_totals_reach_bench_json_and_its_recording(tmp_path: Path) -> None:
    record = tmp_path / "sglang.jsonl"
    with running_engine("sglang") as server:
        stats = cli_json("bench", "--url", server.url, "--record", str(record))
    assert stats["totals"] == SGLANG_TOTALS
    # the counts are the server's: the merged chunks alone would say 5 rounds, 12 drafted, 6 accepted
    assert (stats["rounds"], stats["tokens"], stats["drafted"], stats["accepted"]) == (6, 11, 15, 5)
    assert stats["acceptance_rate"] == 0.5 and stats["tau"] == round(11 / 6, 4)
    assert stats["per_position_acceptance"] == [0.6, 0.6667, 0.0]
    assert stats["text"] == "".join(f" w{k}" for k in range(sum(SGLANG_CHUNKS)))
    assert stats["cross_check"] is None  # SGLang publishes no per-request counters to check against
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["header", *["round"] * len(SGLANG_CHUNKS), "totals"]
    assert lines[0]["version"] == 5
    replayed = cli_json("replay", str(record))
    assert replayed["totals"] == SGLANG_TOTALS
    assert {k: replayed[k] for k in ("rounds", "drafted", "accepted", "acceptance_rate", "tau")} == \
        {k: stats[k] for k in ("rounds", "drafted", "accepted", "acceptance_rate", "tau")}


@pytest.mark.parametrize(("kind", "agrees", "differs_by"), [
    ("llama", True, {"drafts": 0, "drafted": 0, "accepted": 0, "per_position": [0, 0, 0, 0]}),
    ("llama-differs", False, {"drafts": 0, "drafted": 0, "accepted": 1, "per_position": [0, 1, 0, 0]}),
])
def test_the_cross_check_result_is_in_bench_json_and_its_recording(
        tmp_path: Path, kind: str, agrees: bool, differs_by: dict[str, Any]) -> None:
    record = tmp_path / "llama.jsonl"
    with running_engine(kind) as server:
        stats = cli_json("bench", "--url", server.url, "--record", str(record))
    assert stats["cross_check"] == {"source": "/metrics", "agrees": agrees, "shown": {"drafted": 7, "accepted": 2},
                                    "differs_by": differs_by}
    assert (stats["drafted"], stats["accepted"], stats["totals"]) == (7, 2, None)
    assert json.loads(record.read_text().splitlines()[-1])["type"] == "check"
    replayed = cli_json("replay", str(record))
    # what the live run printed, but γ: the header holds the γ known at the start, and llama-server
    # tells it only by drafting (a difference older than the check, left for its own change)
    assert {**replayed, "gamma": stats["gamma"]} == stats


@pytest.mark.parametrize("lang", LANGS)
def test_the_side_panel_note_says_agrees_or_differs(lang: str) -> None:
    for kind, expected in [
        ("llama", fill("note.cross_check_agrees", lang, drafted="7", accepted="2")),
        ("llama-differs", fill("note.cross_check_differs", lang, drafts="0", drafted="0", accepted="+1",
                               positions="0 +1 0 0")),
    ]:
        with running_engine(kind) as server:
            backend = OpenAIBackend(RunSpec(options=RemoteOptions(url=server.url)))
            session = Session(backend)
            assert session.metrics.cross_check is None
            list(session.run_headless())
        check = session.metrics.cross_check
        note = notes_text(backend.info, lang, check)
        assert check is not None and note.endswith(expected), note
        assert check.agrees is (kind == "llama") and backend.cross_check is not None
        assert backend.cross_check.matches is check.agrees
